import { TRPCError } from "@trpc/server";
import { panelProcedure, ProposalRefSchema, requirePage } from "./panel-procedure";
import { findProposal, type Proposal } from "./proposals";

/** panel.proposals.get — one proposal in full: its args, the whole preview (every change) and what was left out. */
export const proposalsGet = panelProcedure.input(ProposalRefSchema).query(async ({ ctx, input }): Promise<Proposal> => {
  const { page, facts } = await requirePage(ctx, input);
  const proposal = await findProposal(ctx, page, facts, input.proposalId);
  if (!proposal) throw new TRPCError({ code: "NOT_FOUND", message: "no such proposal on this page" });
  return proposal;
});
