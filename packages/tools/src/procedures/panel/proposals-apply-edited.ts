import { type Block, BlockSchema, LIMITS, type OutputEnvelope } from "@mnote/contract";
import type { StoredChangeDecision } from "@mnote/kernel";
import { AppError } from "../../app-error";
import { z } from "zod";
import type { BlockEdit } from "../../context";
import { canonicalJson } from "../../fingerprint";
import { changeTarget } from "../../proposal-merge";
import { decideChanges } from "./decide-changes";
import {
  asShown,
  callProposalTool,
  decidableProposal,
  decisionOn,
  panelEnvelope,
  undecided,
} from "../../panel/decisions";
import { panelProcedure, ProposalRefSchema } from "../../panel/panel-procedure";
import { checkedCut, KeepSchema } from "./proposals-apply-part";
import { proposalArgs } from "../../panel/proposal-cut";
import { decisionKey, type Proposal } from "../../panel/proposals";

export const ProposalsApplyEditedInput = ProposalRefSchema.extend({
  /**
   * The person's versions of blocks the proposal inserts or changes, named by the block's id: the contract's
   * block form, so its limits (text length, types, attributes) apply here and name the field.
   */
  edits: z.array(BlockSchema).min(1, "edits: edit at least one block").max(LIMITS.blocksPerSave),
  /** Keep only these changes (indices into `preview.changes`); all of them when left out. */
  keep: KeepSchema.optional(),
});

/**
 * panel.proposals.applyEdited — edit before you accept (issue 22): a person changes the text, type or
 * attributes of blocks a page.save or page.edit proposal inserts or changes, then applies it. The server
 * re-plans the proposal's tool from its own args with the edited blocks (the browser sends ids and blocks,
 * never an envelope), through the tool's whole chain and limits, at the proposal's base revision (a moved page is
 * a conflict), and in the same kernel transaction marks the proposal applied with edits. The write's audit record
 * keeps both versions of every edited block; its actor is who edited.
 */
export const proposalsApplyEdited = panelProcedure
  .input(ProposalsApplyEditedInput)
  .mutation(async ({ ctx, input }): Promise<OutputEnvelope> => {
    const { page, proposal } = await decidableProposal(ctx, input);
    const total = proposal.preview.changes.length;
    const kept = checkedCut(proposal, input.keep ?? proposal.preview.changes.map((_change, i) => i));
    const edits = blockEdits(proposal, input.edits, new Set(kept));
    if (!asShown(page, proposal)) {
      // Change by change against the page now (decision 0030): the edited blocks in the person's version, the other
      // kept changes as proposed, the undecided rest left out.
      const keep = new Set(kept);
      const byBlock = new Map(edits.map((edit) => [edit.blockId, edit.applied]));
      const decisions = undecided(proposal).map((change) => {
        const id = change.anchor.kind === "block" ? change.anchor.blockId : null;
        const block = id !== null ? byBlock.get(id) : undefined;
        if (!keep.has(change.index)) return { index: change.index, choice: "reject" as const };
        return block
          ? { index: change.index, choice: "edit" as const, block }
          : { index: change.index, choice: "accept" as const };
      });
      const { envelope } = await decideChanges(ctx, input, page, proposal, decisions);
      if (!envelope) throw new AppError("mnote_tool_invalid_input", "keep at least one undecided change");
      return envelope;
    }
    const whole = kept.length === total;
    const args = await proposalArgs(
      ctx,
      page,
      proposal,
      whole ? null : new Set(kept),
      new Map(edits.map((edit) => [edit.blockId, edit.applied])),
    );
    return callProposalTool(
      ctx,
      proposal.toolName,
      {
        ...panelEnvelope(ctx.token, proposal, input),
        idempotencyKey: decisionKey(proposal.idempotencyKey, "edit", { kept, edits: input.edits }),
        dryRun: false,
        args: { ...args, baseRevision: proposal.preview.baseRevision },
      },
      {
        ...decisionOn(proposal, { edits, ...(whole ? {} : { part: { kept, total } }) }),
        // Each change's own state too, so the agent's retry reads the person's final version of each edited block
        // (the answer a change-by-change decision gives; the retry must not redo the original).
        changes: { decided: asShownStates(proposal, new Set(kept), edits), total },
      },
    );
  });

/** Every change of a proposal applied as shown: kept as proposed, kept in the person's version, or left out. */
function asShownStates(proposal: Proposal, kept: ReadonlySet<number>, edits: BlockEdit[]): StoredChangeDecision[] {
  const finals = new Map(edits.map((edit) => [edit.blockId, edit.applied]));
  return proposal.preview.changes.map((change, index): StoredChangeDecision => {
    const target = changeTarget(change);
    if (!kept.has(index)) return { index, state: "rejected", target };
    const id = change.kind === "insert" ? change.block.id : change.kind === "update" ? change.after.id : null;
    const final = id !== null ? finals.get(id) : undefined;
    return final ? { index, state: "applied_with_edits", final, target } : { index, state: "applied", target };
  });
}

/**
 * Each edited block against the version the proposal shows: it must be one the proposal inserts or changes,
 * in a kept change, named once. Blocks sent as proposed are no edit; at least one must differ.
 */
function blockEdits(proposal: Proposal, edited: Block[], kept: ReadonlySet<number>): BlockEdit[] {
  const proposed = new Map<string, { block: Block; change: number }>();
  proposal.preview.changes.forEach((change, i) => {
    if (change.kind === "insert") proposed.set(change.block.id, { block: change.block, change: i });
    if (change.kind === "update") proposed.set(change.after.id, { block: change.after, change: i });
  });
  const seen = new Set<string>();
  const edits: BlockEdit[] = [];
  edited.forEach((block, i) => {
    const was = proposed.get(block.id);
    const problem = !was
      ? `block ${block.id} is not one this proposal inserts or changes`
      : !kept.has(was.change)
        ? `the change of block ${block.id} is left out`
        : seen.has(block.id)
          ? `block ${block.id} is edited twice`
          : null;
    if (problem) throw new AppError("mnote_tool_invalid_input", `edits.${i}.id: ${problem}`);
    seen.add(block.id);
    if (canonicalJson(block) !== canonicalJson(was!.block))
      edits.push({ blockId: block.id, proposed: was!.block, applied: block });
  });
  if (edits.length === 0) {
    throw new AppError("mnote_tool_invalid_input", "edits: every block is as proposed; approve it instead");
  }
  return edits;
}
