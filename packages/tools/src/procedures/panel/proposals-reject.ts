import { LIMITS, storable } from "@mnote/contract";
import { z } from "zod";
import { decideChanges } from "./decide-changes";
import { decidableProposal, recordRejection, undecided } from "../../panel/decisions";
import { panelProcedure, ProposalRefSchema } from "../../panel/panel-procedure";

/** The most a rejection's reason may hold: what the agent reads back (issue 22); one limit, the contract's. */
export const REJECTION_REASON_MAX = LIMITS.rejectionReasonLength;

export const ProposalsRejectInput = ProposalRefSchema.extend({
  reason: storable(z.string())
    .trim()
    .max(REJECTION_REASON_MAX, `reason: at most ${REJECTION_REASON_MAX} characters`)
    .optional(),
});

/**
 * panel.proposals.reject — "Reject all": the decision and its reason go into the audit log and onto the proposal;
 * the agent's retry of the held call answers mnote_tool_rejected with the reason and who decided. When some changes
 * were decided already, only the undecided ones are rejected (decision 0030): the applied ones stay applied.
 */
export const proposalsReject = panelProcedure.input(ProposalsRejectInput).mutation(async ({ ctx, input }) => {
  const { page, proposal } = await decidableProposal(ctx, input);
  const reason = input.reason || null;
  if (proposal.changes.every((change) => !change.decision)) {
    return { rejected: proposal.id, auditId: await recordRejection(ctx, proposal, input, reason) };
  }
  const decisions = undecided(proposal).map((change) => ({
    index: change.index,
    choice: "reject" as const,
    ...(reason ? { reason } : {}),
  }));
  const { auditId } = await decideChanges(ctx, input, page, proposal, decisions);
  return { rejected: proposal.id, auditId };
});
