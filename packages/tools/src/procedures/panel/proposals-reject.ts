import { storable } from "@mnote/contract";
import { z } from "zod";
import { decidableProposal, recordRejection } from "./decisions";
import { panelProcedure, ProposalRefSchema } from "./panel-procedure";

/** The most a rejection's reason may hold: what the agent reads back (issue 22). */
export const REJECTION_REASON_MAX = 500;

export const ProposalsRejectInput = ProposalRefSchema.extend({
  reason: storable(z.string())
    .trim()
    .max(REJECTION_REASON_MAX, `reason: at most ${REJECTION_REASON_MAX} characters`)
    .optional(),
});

/**
 * panel.proposals.reject — the decision and its reason go into the audit log and onto the proposal; the
 * agent's retry of the held call answers mnote_tool_rejected with the reason and who decided.
 */
export const proposalsReject = panelProcedure.input(ProposalsRejectInput).mutation(async ({ ctx, input }) => {
  const { proposal } = await decidableProposal(ctx, input);
  const auditId = await recordRejection(ctx, proposal, input, input.reason || null);
  return { rejected: proposal.id, auditId };
});
