import type { OutputEnvelope } from "@mnote/contract";
import { AppError } from "../../app-error";
import { decideChanges } from "./decide-changes";
import { applyAsShown, asShown, decidableProposal, undecided } from "../../panel/decisions";
import { panelProcedure, ProposalRefSchema } from "../../panel/panel-procedure";

/**
 * panel.proposals.approve — "Apply all". On the page it was computed on, with nothing decided yet, it applies exactly
 * what was shown (`applyAsShown`, under the proposal's own key). After the page moved on, or some changes were
 * decided, it accepts every undecided change that does not conflict (decision 0030): conflicts stay pending for the
 * person to resolve, and when only conflicts are left it says so (mnote_tool_conflict) and writes nothing.
 */
export const proposalsApprove = panelProcedure
  .input(ProposalRefSchema)
  .mutation(async ({ ctx, input }): Promise<OutputEnvelope> => {
    const { page, proposal } = await decidableProposal(ctx, input);
    if (asShown(page, proposal)) return applyAsShown(ctx, proposal, input);
    const current = undecided(proposal).filter((change) => change.state === "pending");
    if (current.length === 0) {
      throw new AppError(
        "mnote_tool_conflict",
        "every change left conflicts with a newer version of the page: keep yours, take the agent's, or edit each",
      );
    }
    const decisions = current.map((change) => ({ index: change.index, choice: "accept" as const }));
    const { envelope } = await decideChanges(ctx, input, page, proposal, decisions);
    return envelope!;
  });
