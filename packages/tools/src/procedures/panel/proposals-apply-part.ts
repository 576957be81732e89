import { type Block, LIMITS, type OutputEnvelope, type ToolArgs } from "@mnote/contract";
import { applySelectedChanges } from "@mnote/diff";
import { blockIdsNamed, type PageRecord, simulateBlockEdits } from "@mnote/kernel";
import { z } from "zod";
import type { ToolsContext } from "../../context";
import { keptOperations, withInsertIds } from "../../planning/page-edit";
import { withIds } from "../../planning/page-save";
import { callProposalTool, decisionOn, panelEnvelope, pendingProposal, requireDecider } from "./decisions";
import { panelProcedure, ProposalRefSchema } from "./panel-procedure";
import { partialApplyKey, type Proposal } from "./proposals";
import { cutsByChange } from "./rules";
import { AppError } from "../../app-error";

export const ProposalsApplyPartInput = ProposalRefSchema.extend({
  /** Indices into the proposal's `preview.changes` of the changes to write; the others are left out. */
  keep: z.array(z.number().int().min(0)).min(1, "keep at least one change").max(LIMITS.blocksPerSave),
});

/**
 * panel.proposals.applyPart — a person keeps some changes of a page.save or page.edit proposal and
 * applies them in ONE step (decision 0016): the server cuts the edit to the kept changes, writes it at
 * the proposal's base revision on the proposal's run and trace, and in the same kernel transaction marks
 * the proposal applied in part (kept of total). Any failure writes nothing and leaves the proposal
 * pending; no second proposal is recorded on the way.
 */
export const proposalsApplyPart = panelProcedure
  .input(ProposalsApplyPartInput)
  .mutation(async ({ ctx, input }): Promise<OutputEnvelope> => {
    const { page, proposal } = await pendingProposal(ctx, input);
    await requireDecider(ctx, input, proposal);
    if (!cutsByChange(proposal.toolName)) {
      throw new AppError("mnote_tool_invalid_input", "only page.save and page.edit proposals can be applied in part");
    }
    if (proposal.stale)
      throw new AppError("mnote_tool_conflict", "the page changed since this proposal; re-run the dry run");
    const total = proposal.preview.changes.length;
    const kept = [...new Set(input.keep)].sort((a, b) => a - b);
    if (kept.at(-1)! >= total)
      throw new AppError("mnote_tool_invalid_input", `keep: the proposal has ${total} changes (0 to ${total - 1})`);
    const base = panelEnvelope(ctx.token, proposal, input);
    if (kept.length === total) {
      // Everything kept is the proposal itself: apply it as shown, as Approve does.
      const args = { ...proposal.args, baseRevision: proposal.preview.baseRevision };
      return callProposalTool(
        ctx,
        proposal.toolName,
        { ...base, idempotencyKey: proposal.idempotencyKey, dryRun: false, args },
        decisionOn(proposal),
      );
    }
    const keep = new Set(kept);
    const args =
      proposal.toolName === "mnote.page.edit"
        ? await keptEditArgs(ctx, page, proposal, keep)
        : await keptSaveArgs(ctx, page, proposal, keep);
    return callProposalTool(
      ctx,
      proposal.toolName,
      {
        ...base,
        idempotencyKey: partialApplyKey(proposal.idempotencyKey, kept),
        dryRun: false,
        args: { ...args, baseRevision: proposal.preview.baseRevision },
      },
      decisionOn(proposal, { kept, total }),
    );
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
  const edit = simulateBlockEdits(
    await ctx.kernel.findBlocks(page.id, blockIdsNamed(operations)),
    page.blockCount,
    operations,
  );
  const kept = keptOperations(operations, edit.changes, edit.operationOfChange, (i) => keep.has(i));
  if (kept.length === 0) throw new AppError("mnote_tool_invalid_input", "keep at least one change");
  return { operations: kept };
}
