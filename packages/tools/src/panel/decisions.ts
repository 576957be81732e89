import { randomUUID } from "node:crypto";
import type { OutputEnvelope } from "@mnote/contract";
import type { TokenRecord } from "@mnote/kernel";
import type { z } from "zod";
import { callTool } from "../call-tool";
import type { PanelDecision, ToolsContext } from "../context";
import { createCallerFactory, router } from "../trpc";
import { type PageRefSchema, type PersonContext, type ProposalRefSchema, requirePage } from "./panel-procedure";
import { findProposal, type Proposal } from "./proposals";
import { revertTool, revertToolSpec } from "./revert-tool";
import { isToolName, proposalToolSpec } from "./rules";
import { AppError } from "../app-error";

// A person's decisions on a proposal run through the proposal's own tool chain: the panel builds the envelope here
// and calls the tool, never the kernel. Each way of deciding is written once here (apply as shown, record a
// rejection); the procedures compose them.

/** The revert tool is no agent tool: decisions call it through its own small router. */
const revertCaller = createCallerFactory(router({ revert: revertTool }));

/** Send a person's decision through the tool chain of the proposal's tool, the decision riding along for the audit. */
export function callProposalTool(
  ctx: ToolsContext,
  toolName: string,
  envelope: Record<string, unknown>,
  decision?: PanelDecision,
): Promise<OutputEnvelope> {
  const withDecision: ToolsContext = decision ? { ...ctx, decision } : ctx;
  if (isToolName(toolName)) return callTool(withDecision, toolName, envelope);
  if (toolName === revertToolSpec.name) return revertCaller(withDecision).revert(envelope as never);
  throw new AppError("mnote_tool_invalid_input", `cannot apply a ${toolName} proposal`);
}

/**
 * The envelope a person's decision sends through the tool chain. It keeps the proposal's run and trace
 * (issue 13: filtering the audit trail by the agent's run shows the approved write too); the session and
 * the call are the person's own.
 */
export function panelEnvelope(
  token: TokenRecord,
  proposal: Pick<Proposal, "toolName" | "runId" | "traceId">,
  ref: z.infer<typeof PageRefSchema>,
) {
  return {
    toolName: proposal.toolName,
    workspaceId: ref.workspaceId,
    documentId: ref.documentId,
    actorId: token.userId,
    sessionId: `panel_${token.id}`,
    runId: proposal.runId ?? "panel",
    toolCallId: `panel_${randomUUID()}`,
    traceId: proposal.traceId ?? randomUUID(),
    capabilityScope: token.scopes,
  };
}

/** What a write made by deciding on `proposal` records about it. */
export function decisionOn(proposal: Proposal, extra: Pick<PanelDecision, "part" | "edits"> = {}): PanelDecision {
  return {
    proposalId: proposal.id,
    proposer: { actorId: proposal.who.actorId, holder: proposal.who.holder, tokenId: proposal.who.tokenId },
    ...(extra.part ? { part: extra.part } : {}),
    ...(extra.edits?.length ? { edits: extra.edits } : {}),
  };
}

/** The proposal, still pending, on a page the person may read. */
export async function pendingProposal(ctx: PersonContext, input: z.infer<typeof ProposalRefSchema>) {
  const { page, facts } = await requirePage(ctx, input);
  const proposal = await findProposal(ctx, page, facts, input.proposalId);
  if (!proposal) throw new AppError("mnote_tool_not_found", "no such proposal on this page");
  if (proposal.status !== "pending") {
    throw new AppError(
      "mnote_tool_conflict",
      `the proposal is already ${proposal.status.replaceAll("_", " ")}`,
      "proposal_decided",
    );
  }
  return { page, facts, proposal };
}

/**
 * The pending proposal, when the signed-in person may decide on it: every decision (approve, reject, apply
 * in part or edited, re-run) starts here, so each fails the same way for a viewer or a narrow session.
 */
export async function decidableProposal(ctx: PersonContext, input: z.infer<typeof ProposalRefSchema>) {
  const found = await pendingProposal(ctx, input);
  await requireDecider(ctx, input, found.proposal);
  return found;
}

/** Refuses a person who may not decide on the proposal, naming what is missing. */
async function requireDecider(
  ctx: PersonContext,
  input: z.infer<typeof PageRefSchema>,
  proposal: Pick<Proposal, "toolName">,
) {
  const spec = proposalToolSpec(proposal.toolName);
  if (!spec) throw new AppError("mnote_tool_invalid_input", `cannot decide on a ${proposal.toolName} proposal`);
  await requirePage(ctx, input, spec.access);
  if (!ctx.token.scopes.includes(spec.capability)) {
    throw new AppError("mnote_tool_permission_denied", `this session's scopes do not include ${spec.capability}`);
  }
}

/**
 * Apply exactly what was shown: the same tool, args and idempotency key, at the proposal's base revision,
 * with the person as actor, on the proposal's run and trace. The write settles the proposal in its own
 * transaction (of two people deciding at once, one wins; the other is told it was decided meanwhile).
 */
export function applyAsShown(ctx: PersonContext, proposal: Proposal, ref: z.infer<typeof PageRefSchema>) {
  const envelope = {
    ...panelEnvelope(ctx.token, proposal, ref),
    idempotencyKey: proposal.idempotencyKey,
    dryRun: false,
    args: { ...proposal.args, baseRevision: proposal.preview.baseRevision },
  };
  return callProposalTool(ctx, proposal.toolName, envelope, decisionOn(proposal));
}

/**
 * Record a person's rejection of a pending proposal: the audit record (with the reason, ≤ 500 characters) and
 * the proposal marked rejected with who and why, in one kernel transaction. CONFLICT when someone decided it
 * meanwhile; nothing is written then.
 */
export async function recordRejection(
  ctx: PersonContext,
  proposal: Proposal,
  ref: z.infer<typeof PageRefSchema>,
  reason: string | null,
): Promise<number> {
  const { proposalId, proposer } = decisionOn(proposal);
  const auditId = await ctx.kernel.rejectProposal({
    proposalId,
    reason,
    record: {
      identity: { ...panelEnvelope(ctx.token, proposal, ref), tokenId: ctx.token.id, holder: "person" },
      effect: "none",
      outcome: "rejected",
      idempotencyKey: proposal.idempotencyKey,
      payloadFingerprint: proposal.payloadFingerprint,
      baseRevision: proposal.preview.baseRevision,
      detail: { proposalId, proposer, reason },
    },
  });
  if (auditId === null)
    throw new AppError("mnote_tool_conflict", "the proposal was decided meanwhile", "proposal_decided");
  return auditId;
}

/**
 * Whether deciding the whole proposal is still "apply exactly what was shown": nothing of it decided yet, no conflict
 * in it (a revert's can be born with some) and the page at its base revision. Otherwise decisions go change by change
 * against the page now (decision 0030).
 */
export function asShown(page: { revision: number }, proposal: Proposal): boolean {
  return (
    page.revision === proposal.preview.baseRevision &&
    proposal.changes.every((change) => !change.decision && change.state !== "conflict")
  );
}

/** The changes of a proposal nobody decided yet, by index. */
export const undecided = (proposal: Proposal) => proposal.changes.filter((change) => !change.decision);
