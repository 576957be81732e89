import { randomUUID } from "node:crypto";
import { type Block, type OutputEnvelope, TOOL_NAMES, type ToolArgs, type ToolName } from "@mnote/contract";
import { applySelectedChanges } from "@mnote/diff";
import { TRPCError } from "@trpc/server";
import { z } from "zod";
import { callTool } from "../../call-tool";
import { createCallerFactory, router } from "../../trpc";
import { contractToolSpec, type ToolSpec } from "../../tool-spec";
import { pageRevert, pageRevertMeta } from "./page-revert";
import { withIds } from "../page-save";
import { PageRefSchema, panelProcedure, requirePage } from "./panel-procedure";
import { findProposal, listProposals, partialApplyKey, type Proposal } from "./proposals";
import { blockIdsNamed, type PageRecord, simulateBlockEdits, type TokenRecord } from "@mnote/kernel";
import { keptOperations, withInsertIds } from "../page-edit";
import type { ToolsContext } from "../../context";

/** Decisions call the revert write through its own small router, so this file does not depend on the app router. */
const revertCaller = createCallerFactory(router({ revert: pageRevert }));

/** Send a person's decision through the tool chain of the proposal's tool. */
function callProposalTool(ctx: ToolsContext, toolName: string, envelope: Record<string, unknown>): Promise<OutputEnvelope> {
  if ((TOOL_NAMES as string[]).includes(toolName)) return callTool(ctx, toolName as ToolName, envelope);
  if (toolName === pageRevertMeta.name) return revertCaller(ctx).revert(envelope as never) as Promise<OutputEnvelope>;
  throw new TRPCError({ code: "BAD_REQUEST", message: `cannot apply a ${toolName} proposal` });
}

/** The checks a proposal's tool puts in front of a decision on it: its capability and page access. */
function proposalToolSpec(toolName: string): ToolSpec | null {
  if ((TOOL_NAMES as string[]).includes(toolName)) return contractToolSpec(toolName as ToolName);
  if (toolName === pageRevertMeta.name) return pageRevertMeta;
  return null;
}


const ProposalRefSchema = PageRefSchema.extend({ proposalId: z.number().int().positive() });

/**
 * panel.proposals.list — the page's proposals as summaries: every pending one, then the newest decided.
 * A preview can be megabytes; the panel asks for one with panel.proposals.get when it shows it.
 */
export const proposalsList = panelProcedure.input(PageRefSchema).query(async ({ ctx, input }) => {
  const { page } = await requirePage(ctx, input);
  return listProposals(ctx.kernel, page);
});

/** panel.proposals.get — one proposal in full: its args and the whole preview (every change). */
export const proposalsGet = panelProcedure.input(ProposalRefSchema).query(async ({ ctx, input }): Promise<Proposal> => {
  const { page } = await requirePage(ctx, input);
  const proposal = await findProposal(ctx.kernel, page, input.proposalId);
  if (!proposal) throw new TRPCError({ code: "NOT_FOUND", message: "no such proposal on this page" });
  return proposal;
});

/** The envelope a person's decision sends through the tool chain, on the proposal's trace. */
function panelEnvelope(token: TokenRecord, proposal: Pick<Proposal, "toolName" | "traceId">, ref: z.infer<typeof PageRefSchema>) {
  return {
    toolName: proposal.toolName,
    workspaceId: ref.workspaceId,
    documentId: ref.documentId,
    actorId: token.userId,
    sessionId: `panel_${token.id}`,
    runId: "panel",
    toolCallId: `panel_${randomUUID()}`,
    traceId: proposal.traceId ?? randomUUID(),
    capabilityScope: token.scopes,
  };
}

async function pendingProposal(ctx: ToolsContext & { token: TokenRecord }, input: z.infer<typeof ProposalRefSchema>) {
  const { page } = await requirePage(ctx, input);
  const proposal = await findProposal(ctx.kernel, page, input.proposalId);
  if (!proposal) throw new TRPCError({ code: "NOT_FOUND", message: "no such proposal on this page" });
  if (proposal.status !== "pending") throw new TRPCError({ code: "CONFLICT", message: `the proposal is already ${proposal.status}` });
  return { page, proposal };
}

/**
 * Only whoever may approve a proposal may reject it. Approval runs the proposal's tool with the person's
 * token, so its checks decide: the token's scopes hold the tool's capability, and the person has the
 * page access the tool needs (a viewer reads the proposal but decides nothing).
 */
async function requireDecider(ctx: ToolsContext & { token: TokenRecord }, input: z.infer<typeof PageRefSchema>, proposal: Proposal) {
  const spec = proposalToolSpec(proposal.toolName);
  if (!spec) throw new TRPCError({ code: "BAD_REQUEST", message: `cannot decide on a ${proposal.toolName} proposal` });
  await requirePage(ctx, input, spec.access);
  if (!ctx.token.scopes.includes(spec.capability)) {
    throw new TRPCError({ code: "FORBIDDEN", message: `this session's scopes do not include ${spec.capability}` });
  }
}

/**
 * panel.proposals.approve — apply exactly what was shown: the same tool, args and
 * idempotency key, at the proposal's base revision, with the person as actor.
 * A moved page answers mnote_tool_conflict and nothing is written.
 */
export const proposalsApprove = panelProcedure.input(ProposalRefSchema).mutation(async ({ ctx, input }): Promise<OutputEnvelope> => {
  const { proposal } = await pendingProposal(ctx, input);
  const envelope = {
    ...panelEnvelope(ctx.token, proposal, input),
    idempotencyKey: proposal.idempotencyKey,
    dryRun: false,
    args: { ...proposal.args, baseRevision: proposal.preview.baseRevision },
  };
  return callProposalTool(ctx, proposal.toolName, envelope);
});

/** panel.proposals.reject — the decision goes into the audit log; the proposal leaves the pending list. */
export const proposalsReject = panelProcedure
  .input(ProposalRefSchema.extend({ reason: z.string().max(500).optional() }))
  .mutation(async ({ ctx, input }) => {
    const { proposal } = await pendingProposal(ctx, input);
    await requireDecider(ctx, input, proposal);
    const envelope = panelEnvelope(ctx.token, proposal, input);
    const auditId = await ctx.kernel.appendAudit({
      identity: { ...envelope, tokenId: ctx.token.id, holder: "person" },
      effect: "none",
      outcome: "rejected",
      idempotencyKey: proposal.idempotencyKey,
      payloadFingerprint: proposal.payloadFingerprint,
      baseRevision: proposal.preview.baseRevision,
      detail: { proposalId: proposal.id, reason: input.reason ?? null },
    });
    return { rejected: proposal.id, auditId };
  });

/**
 * panel.proposals.applySelection — a person keeps some block changes of a page.save or
 * page.edit proposal. The kept changes become a new dry run of the same tool by the person,
 * so what gets approved next is again a plan the server computed.
 */
export const proposalsApplySelection = panelProcedure
  .input(ProposalRefSchema.extend({ keep: z.array(z.number().int().min(0)).max(20_000) }))
  .mutation(async ({ ctx, input }) => {
    const { page, proposal } = await pendingProposal(ctx, input);
    if (proposal.toolName !== "mnote.page.save" && proposal.toolName !== "mnote.page.edit") {
      throw new TRPCError({ code: "BAD_REQUEST", message: "only page.save and page.edit proposals can be applied in part" });
    }
    if (proposal.stale) throw new TRPCError({ code: "CONFLICT", message: "the page changed since this proposal; re-run the dry run" });
    const keep = new Set(input.keep);
    const idempotencyKey = partialApplyKey(proposal.idempotencyKey, [...keep]);
    const args =
      proposal.toolName === "mnote.page.edit"
        ? await keptEditArgs(ctx, page, proposal, keep)
        : await keptSaveArgs(ctx, page, proposal, keep);
    const envelope = await callTool(ctx, proposal.toolName, {
      ...panelEnvelope(ctx.token, proposal, input),
      idempotencyKey,
      dryRun: true,
      args: { ...args, baseRevision: page.revision },
    });
    if (!envelope.ok) return { envelope, proposalId: null };
    const created = (await listProposals(ctx.kernel, page)).find(
      (p) => p.idempotencyKey === idempotencyKey && p.status === "pending",
    );
    return { envelope, proposalId: created?.id ?? null };
  });

/** A page.save proposal cut to the kept changes: the body it would give with the others undone. */
async function keptSaveArgs(ctx: ToolsContext, page: PageRecord, proposal: Proposal, keep: Set<number>) {
  const args = proposal.args as { content: Block[]; mode: "replace" | "append"; allowDeletes?: boolean };
  const changes = proposal.preview.changes;
  let content: Block[];
  if (args.mode === "append") {
    content = changes.flatMap((change, i) => (keep.has(i) && change.kind === "insert" ? [change.block] : []));
  } else {
    const current = await ctx.kernel.getBlocks(page.id);
    // The proposal is not stale, so the page is the one its ids were derived against.
    const proposed = withIds(args.content, proposal.idempotencyKey, new Set(current.map((block) => block.id)));
    content = applySelectedChanges(current, proposed, (_change, i) => keep.has(i), changes);
  }
  return { content, mode: args.mode, allowDeletes: args.allowDeletes ?? false };
}

/**
 * A page.edit proposal cut to the kept changes, per operation: its operations are worked out again
 * on the (unchanged) page to learn which operation made each change, then cut by `keptOperations`.
 * Only the blocks the edit names are read, as for the edit itself.
 */
async function keptEditArgs(ctx: ToolsContext, page: PageRecord, proposal: Proposal, keep: Set<number>) {
  const args = proposal.args as ToolArgs<"mnote.page.edit">;
  const operations = await withInsertIds(ctx.kernel, page, args.operations, proposal.idempotencyKey);
  const edit = simulateBlockEdits(await ctx.kernel.findBlocks(page.id, blockIdsNamed(operations)), page.blockCount, operations);
  const kept = keptOperations(operations, edit.changes, edit.operationOfChange, (i) => keep.has(i));
  if (kept.length === 0) throw new TRPCError({ code: "BAD_REQUEST", message: "keep at least one change" });
  return { operations: kept };
}

/**
 * panel.proposals.rerun — the page moved past a proposal: compute the same edit
 * again against the page as it is now (a new dry run by the person, with a new key),
 * and retire the stale one.
 */
export const proposalsRerun = panelProcedure.input(ProposalRefSchema).mutation(async ({ ctx, input }) => {
  const { proposal } = await pendingProposal(ctx, input);
  const { baseRevision: _stale, ...args } = proposal.args;
  const idempotencyKey = `panel_${randomUUID()}`;
  const envelope = { ...panelEnvelope(ctx.token, proposal, input), idempotencyKey, dryRun: true, args };
  const result = await callProposalTool(ctx, proposal.toolName, envelope);
  if (!result.ok) return { envelope: result, proposalId: null };
  await ctx.kernel.appendAudit({
    identity: { ...panelEnvelope(ctx.token, proposal, input), tokenId: ctx.token.id, holder: "person" },
    effect: "none",
    outcome: "rejected",
    idempotencyKey: proposal.idempotencyKey,
    payloadFingerprint: proposal.payloadFingerprint,
    baseRevision: proposal.preview.baseRevision,
    detail: { proposalId: proposal.id, reason: "superseded by a new dry run" },
  });
  const { page } = await requirePage(ctx, input);
  const fresh = (await listProposals(ctx.kernel, page)).find((p) => p.idempotencyKey === idempotencyKey);
  return { envelope: result, proposalId: fresh?.id ?? null };
});
