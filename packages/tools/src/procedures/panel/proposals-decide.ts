import type { OutputEnvelope } from "@mnote/contract";
import { ProposalsDecideInput } from "./changes";
import { decideChanges } from "./decide-changes";
import { decidableProposal } from "../../panel/decisions";
import { panelProcedure, requirePage } from "../../panel/panel-procedure";
import { findProposal, type Proposal } from "../../panel/proposals";

/**
 * panel.proposals.decide — decisions on some changes of a pending proposal, in one step (decision 0030): accept,
 * reject, keep mine / take the agent's over a conflict, or edit. The applied ones are merged with the page as it is
 * now and written as one command (on the proposal's run and trace, its proposer recorded); the others stay pending
 * until decided. Answers the write's envelope (null when only rejections were recorded) and the proposal as it
 * stands after the step, so a second reviewer's panel and this one read the same server state.
 */
export const proposalsDecide = panelProcedure
  .input(ProposalsDecideInput)
  .mutation(
    async ({
      ctx,
      input,
    }): Promise<{ envelope: OutputEnvelope | null; auditId: number | null; proposal: Proposal | null }> => {
      const { page, proposal } = await decidableProposal(ctx, input);
      const outcome = await decideChanges(ctx, input, page, proposal, input.decisions);
      const now = await requirePage(ctx, input);
      return { ...outcome, proposal: await findProposal(ctx, now.page, now.facts, input.proposalId) };
    },
  );
