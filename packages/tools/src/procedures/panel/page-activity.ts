import { pageCursor } from "./page-changes";
import { PageRefSchema, panelProcedure, requirePage } from "../../panel/panel-procedure";

/**
 * panel.page.activity — the page's change cursor. The page route reads it before prefetching and starts the
 * live stream (panel.page.changes) from it; the panel no longer polls it.
 */
export const pageActivity = panelProcedure.input(PageRefSchema).query(async ({ ctx, input }) => {
  const { page } = await requirePage(ctx, input);
  return { cursor: await pageCursor(ctx.kernel, page.id, page.revision) };
});
