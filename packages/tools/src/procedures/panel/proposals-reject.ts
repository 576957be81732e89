import { z } from "zod";
import { decisionOn, panelEnvelope, pendingProposal, requireDecider } from "./decisions";
import { panelProcedure, ProposalRefSchema } from "./panel-procedure";

export const ProposalsRejectInput = ProposalRefSchema.extend({ reason: z.string().max(500).optional() });

/** panel.proposals.reject — the decision goes into the audit log; the proposal leaves the pending list. */
export const proposalsReject = panelProcedure.input(ProposalsRejectInput).mutation(async ({ ctx, input }) => {
  const { proposal } = await pendingProposal(ctx, input);
  await requireDecider(ctx, input, proposal);
  const { proposalId, proposer } = decisionOn(proposal);
  const auditId = await ctx.kernel.appendAudit({
    identity: { ...panelEnvelope(ctx.token, proposal, input), tokenId: ctx.token.id, holder: "person" },
    effect: "none",
    outcome: "rejected",
    idempotencyKey: proposal.idempotencyKey,
    payloadFingerprint: proposal.payloadFingerprint,
    baseRevision: proposal.preview.baseRevision,
    detail: { proposalId, proposer, reason: input.reason ?? null },
  });
  return { rejected: proposal.id, auditId };
});
