import type { OutputEnvelope } from "@mnote/contract";
import { callProposalTool, decisionOn, panelEnvelope, pendingProposal } from "./decisions";
import { panelProcedure, ProposalRefSchema } from "./panel-procedure";

/**
 * panel.proposals.approve — apply exactly what was shown: the same tool, args and idempotency key, at
 * the proposal's base revision, with the person as actor, on the proposal's run and trace. The write's
 * audit record names the proposal and its proposer. A moved page answers mnote_tool_conflict and
 * nothing is written.
 */
export const proposalsApprove = panelProcedure
  .input(ProposalRefSchema)
  .mutation(async ({ ctx, input }): Promise<OutputEnvelope> => {
    const { proposal } = await pendingProposal(ctx, input);
    const envelope = {
      ...panelEnvelope(ctx.token, proposal, input),
      idempotencyKey: proposal.idempotencyKey,
      dryRun: false,
      args: { ...proposal.args, baseRevision: proposal.preview.baseRevision },
    };
    return callProposalTool(ctx, proposal.toolName, envelope, decisionOn(proposal));
  });
