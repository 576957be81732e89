import { LIMITS, type OutputEnvelope } from "@mnote/contract";
import { z } from "zod";
import { decideChanges } from "./decide-changes";
import {
  applyAsShown,
  asShown,
  callProposalTool,
  decidableProposal,
  decisionOn,
  panelEnvelope,
  undecided,
} from "../../panel/decisions";
import { panelProcedure, ProposalRefSchema } from "../../panel/panel-procedure";
import { proposalArgs } from "../../panel/proposal-cut";
import { decisionKey, type Proposal } from "../../panel/proposals";
import { cutsByChange } from "../../panel/rules";
import { AppError } from "../../app-error";

export const KeepSchema = z
  .array(z.number().int().min(0))
  .min(1, "keep at least one change")
  .max(LIMITS.blocksPerSave)
  .describe("Indices into the proposal's `preview.changes` of the changes to write; the others are left out.");

export const ProposalsApplyPartInput = ProposalRefSchema.extend({ keep: KeepSchema });

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
    const { page, proposal } = await decidableProposal(ctx, input);
    const kept = checkedCut(proposal, input.keep);
    if (!asShown(page, proposal)) {
      // The page moved on, or some changes were decided: keep these, leave the other undecided ones out (0030).
      const keep = new Set(kept);
      const decisions = undecided(proposal).map((change) => ({
        index: change.index,
        choice: keep.has(change.index) ? ("accept" as const) : ("reject" as const),
      }));
      const { envelope } = await decideChanges(ctx, input, page, proposal, decisions);
      if (!envelope) throw new AppError("mnote_tool_invalid_input", "keep at least one undecided change");
      return envelope;
    }
    // Everything kept is the proposal itself.
    if (kept.length === proposal.preview.changes.length) return applyAsShown(ctx, proposal, input);
    const args = await proposalArgs(ctx, page, proposal, new Set(kept));
    return callProposalTool(
      ctx,
      proposal.toolName,
      {
        ...panelEnvelope(ctx.token, proposal, input),
        idempotencyKey: decisionKey(proposal.idempotencyKey, "part", kept),
        dryRun: false,
        args: { ...args, baseRevision: proposal.preview.baseRevision },
      },
      decisionOn(proposal, { part: { kept, total: proposal.preview.changes.length } }),
    );
  });

/**
 * The kept indices, sorted and distinct, of a proposal that can be cut and applied now: a page.save or page.edit
 * proposal, with every index one of its changes. BAD_REQUEST / CONFLICT naming the problem otherwise.
 */
export function checkedCut(proposal: Proposal, keep: readonly number[]): number[] {
  if (!cutsByChange(proposal.toolName)) {
    throw new AppError(
      "mnote_tool_invalid_input",
      "only page.save and page.edit proposals can be applied in part or edited",
    );
  }
  const total = proposal.preview.changes.length;
  const kept = [...new Set(keep)].sort((a, b) => a - b);
  if (kept.at(-1)! >= total)
    throw new AppError("mnote_tool_invalid_input", `keep: the proposal has ${total} changes (0 to ${total - 1})`);
  return kept;
}
