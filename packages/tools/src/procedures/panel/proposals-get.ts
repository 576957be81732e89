import { panelProcedure, ProposalRefSchema, requirePage } from "../../panel/panel-procedure";
import { findProposal, type Proposal } from "../../panel/proposals";
import { AppError } from "../../app-error";

/** panel.proposals.get — one proposal in full: its args, the whole preview (every change) and what was left out. */
export const proposalsGet = panelProcedure.input(ProposalRefSchema).query(async ({ ctx, input }): Promise<Proposal> => {
  const { page, facts } = await requirePage(ctx, input);
  const proposal = await findProposal(ctx, page, facts, input.proposalId);
  if (!proposal) throw new AppError("mnote_tool_not_found", "no such proposal on this page");
  return proposal;
});
