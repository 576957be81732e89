import type { OutputEnvelope } from "@mnote/contract";
import { applyAsShown, decidableProposal } from "./decisions";
import { panelProcedure, ProposalRefSchema } from "./panel-procedure";

/**
 * panel.proposals.approve — apply exactly what was shown (`applyAsShown`). The write's audit record names the
 * proposal and its proposer. A moved page answers mnote_tool_conflict and nothing is written.
 */
export const proposalsApprove = panelProcedure
  .input(ProposalRefSchema)
  .mutation(async ({ ctx, input }): Promise<OutputEnvelope> => {
    const { proposal } = await decidableProposal(ctx, input);
    return applyAsShown(ctx, proposal, input);
  });
