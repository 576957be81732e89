import { IdSchema } from "@mnote/contract";
import { z } from "zod";
import { canReadPage, canWritePage } from "../../access";
import { panelProcedure } from "../../panel/panel-procedure";

export const PagesListInput = z.object({ workspaceId: IdSchema });

/** A page on the home list: what a person may do there, and how many edits wait for their decision. */
export interface PageListItem {
  id: string;
  title: string;
  revision: number;
  isPrivate: boolean;
  canWrite: boolean;
  /** Pending proposals (repeats of one edit once), as the page's panel lists them. */
  pendingProposals: number;
}

/**
 * panel.pages.list — the pages of a workspace this person may read, the rest invisible, with their pending
 * proposals: one kernel read for the whole list, whatever the number of pages.
 */
export const pagesList = panelProcedure.input(PagesListInput).query(async ({ ctx, input }): Promise<PageListItem[]> => {
  const overviews = await ctx.kernel.listPageOverviews({ workspaceId: input.workspaceId, userId: ctx.token.userId });
  return overviews.flatMap(({ facts, pendingProposals }) => {
    if (!canReadPage(facts)) return [];
    const page = facts.page!;
    return [
      {
        id: page.id,
        title: page.title,
        revision: page.revision,
        isPrivate: page.isPrivate,
        canWrite: canWritePage(facts),
        pendingProposals,
      },
    ];
  });
});
