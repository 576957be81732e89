import { PageRefSchema, panelProcedure, requirePage } from "../../panel/panel-procedure";
import { listProposals, type ProposalListItem } from "../../panel/proposals";

/**
 * panel.proposals.list — the page's proposals as summaries: every pending one, then the newest decided,
 * with who proposed them and what the signed-in person may do with each. A preview can be megabytes;
 * the panel asks for one with panel.proposals.get when it shows it.
 */
export const proposalsList = panelProcedure
  .input(PageRefSchema)
  .query(async ({ ctx, input }): Promise<ProposalListItem[]> => {
    const { page, facts } = await requirePage(ctx, input);
    return listProposals(ctx, page, facts);
  });
