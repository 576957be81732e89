import { randomUUID } from "node:crypto";
import { callProposalTool, decidableProposal, panelEnvelope, recordRejection } from "./decisions";
import { panelProcedure, ProposalRefSchema } from "./panel-procedure";

/**
 * panel.proposals.rerun — the page moved past a proposal: compute the same edit again against the page
 * as it is now (a new dry run by the person, with a new key, on the proposal's run and trace), and
 * retire the stale one.
 */
export const proposalsRerun = panelProcedure.input(ProposalRefSchema).mutation(async ({ ctx, input }) => {
  const { page, proposal } = await decidableProposal(ctx, input);
  const { baseRevision: _stale, ...args } = proposal.args;
  const idempotencyKey = `panel_${randomUUID()}`;
  const envelope = { ...panelEnvelope(ctx.token, proposal, input), idempotencyKey, dryRun: true, args };
  const result = await callProposalTool(ctx, proposal.toolName, envelope);
  if (!result.ok) return { envelope: result, proposalId: null };
  await recordRejection(ctx, proposal, input, "superseded by a new dry run");
  const fresh = (
    await ctx.kernel.listProposals({ workspaceId: page.workspaceId, documentId: page.id, decidedLimit: 0 })
  ).find((p) => p.idempotencyKey === idempotencyKey);
  return { envelope: result, proposalId: fresh?.auditId ?? null };
});
