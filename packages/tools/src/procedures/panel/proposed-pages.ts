import { type Block, type DryRunResult, IdSchema, type OutputEnvelope } from "@mnote/contract";
import type { ProposalRecord } from "@mnote/kernel";
import { z } from "zod";
import { canCreatePage } from "../../access";
import { AppError } from "../../app-error";
import { callProposalTool, decisionOn, panelEnvelope } from "../../panel/decisions";
import { panelProcedure, type PersonContext } from "../../panel/panel-procedure";
import { ProposalsRejectInput } from "./proposals-reject";

/**
 * Held new pages (issue 34 item 2, decision 0046). A page an agent proposed does not exist yet, so its proposal cannot
 * wait on the page's own panel: it waits on the home list, under its workspace, as "Proposed pages", shown whole —
 * where a reviewer already looks for pages and their pending proposals.
 */
const CREATE_TOOL = "mnote.page.create";

export interface ProposedPage {
  proposalId: number;
  documentId: string;
  title: string;
  isPrivate: boolean;
  blocks: Block[];
  proposedBy: string;
  proposedAt: string;
  /** The person may approve or reject it: an owner or an editor (a private page: only its owner-to-be). */
  canDecide: boolean;
}

const WorkspaceRef = z.object({ workspaceId: IdSchema });
const ProposedRef = WorkspaceRef.extend({ proposalId: z.number().int().positive() });

/**
 * Who sees a held new page: whoever could read it once created — every member for a page, only the proposer's
 * person for a private one.
 */
const mayRead = (ctx: PersonContext, record: ProposalRecord, isPrivate: boolean) =>
  !isPrivate || record.identity.actorId === ctx.token.userId;

async function membership(ctx: PersonContext, workspaceId: string) {
  const facts = await ctx.kernel.getAccessFacts({ workspaceId, documentId: null, userId: ctx.token.userId });
  if (!facts.workspace || !facts.role) throw new AppError("mnote_tool_permission_denied", "no such workspace");
  return facts;
}

async function proposedPage(ctx: PersonContext, record: ProposalRecord, decider: boolean) {
  const audit = await ctx.kernel.getAudit(record.auditId);
  const args = audit?.detail?.args as { title?: string; private?: boolean } | undefined;
  const preview = audit?.detail?.preview as DryRunResult | undefined;
  if (!args || !preview) return null;
  const isPrivate = args.private === true;
  if (!mayRead(ctx, record, isPrivate)) return null;
  const names = await ctx.kernel.getDisplayNames({ userIds: [record.identity.actorId], tokenIds: [] });
  const page: ProposedPage = {
    proposalId: record.auditId,
    documentId: record.identity.documentId,
    title: args.title ?? "",
    isPrivate,
    blocks: preview.changes.flatMap((change) => (change.kind === "insert" ? [change.block] : [])),
    proposedBy: `${names.users[record.identity.actorId] ?? "someone"}'s agent`,
    proposedAt: record.at,
    canDecide: decider && ctx.token.scopes.includes("page.write"),
  };
  return { page, args: audit!.detail!.args as Record<string, unknown> };
}

/** panel.pages.proposed — the workspace's held new pages this person may see, each whole. */
export const pagesProposed = panelProcedure.input(WorkspaceRef).query(async ({ ctx, input }) => {
  const facts = await membership(ctx, input.workspaceId);
  const records = await ctx.kernel.listPendingProposalsOf({ workspaceId: input.workspaceId, toolName: CREATE_TOOL });
  const pages: ProposedPage[] = [];
  for (const record of records) {
    if (!record.held) continue;
    const found = await proposedPage(ctx, record, canCreatePage(facts));
    if (found) pages.push(found.page);
  }
  return pages;
});

/** The held new page, pending, when this person may decide on it. */
async function decidable(ctx: PersonContext, input: z.infer<typeof ProposedRef>) {
  const facts = await membership(ctx, input.workspaceId);
  const record = await ctx.kernel.getProposal(input.proposalId);
  if (!record || record.identity.workspaceId !== input.workspaceId || record.identity.toolName !== CREATE_TOOL)
    throw new AppError("mnote_tool_not_found", "no such proposed page");
  const found = await proposedPage(ctx, record, canCreatePage(facts));
  if (!found) throw new AppError("mnote_tool_not_found", "no such proposed page");
  if (record.status !== "pending")
    throw new AppError("mnote_tool_conflict", `the proposal is already ${record.status}`, "proposal_decided");
  if (!found.page.canDecide) throw new AppError("mnote_tool_permission_denied", "you may not create pages here");
  return { record, args: found.args };
}

const proposalOf = (record: ProposalRecord) => ({
  id: record.auditId,
  toolName: record.identity.toolName,
  runId: record.identity.runId,
  traceId: record.identity.traceId,
  who: { actorId: record.identity.actorId, holder: record.identity.holder, tokenId: record.identity.tokenId },
});

/**
 * panel.pages.approveProposed — creates the page exactly as shown: the agent's call (same args and key) through
 * the tool chain with the person as actor; the page's id comes from the proposer and the key, so it is the page the
 * proposal showed, and the write settles the proposal in its own transaction.
 */
export const pagesApproveProposed = panelProcedure
  .input(ProposedRef)
  .mutation(async ({ ctx, input }): Promise<OutputEnvelope> => {
    const { record, args } = await decidable(ctx, input);
    const proposal = proposalOf(record);
    const { documentId: _none, ...envelope } = panelEnvelope(ctx.token, proposal, {
      workspaceId: input.workspaceId,
      documentId: record.identity.documentId,
    });
    return callProposalTool(
      ctx,
      CREATE_TOOL,
      { ...envelope, idempotencyKey: record.idempotencyKey, dryRun: false, args },
      decisionOn(proposal as never),
    );
  });

/** panel.pages.rejectProposed — nothing is created; the agent's retry hears who decided and why. */
export const pagesRejectProposed = panelProcedure
  .input(ProposedRef.extend({ reason: ProposalsRejectInput.shape.reason }))
  .mutation(async ({ ctx, input }) => {
    const { record } = await decidable(ctx, input);
    const proposal = proposalOf(record);
    const { proposalId, proposer } = decisionOn(proposal as never);
    const auditId = await ctx.kernel.rejectProposal({
      proposalId,
      reason: input.reason ?? null,
      record: {
        identity: {
          ...panelEnvelope(ctx.token, proposal, {
            workspaceId: input.workspaceId,
            documentId: record.identity.documentId,
          }),
          tokenId: ctx.token.id,
          holder: "person",
        },
        effect: "none",
        outcome: "rejected",
        idempotencyKey: record.idempotencyKey,
        payloadFingerprint: record.payloadFingerprint,
        baseRevision: null,
        detail: { proposalId, proposer, reason: input.reason ?? null },
      },
    });
    if (auditId === null)
      throw new AppError("mnote_tool_conflict", "the proposal was decided meanwhile", "proposal_decided");
    return { rejected: true };
  });
