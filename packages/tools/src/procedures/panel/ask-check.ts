import { PageRefSchema, panelProcedure, requirePage } from "./panel-procedure";

/**
 * panel.ask.check — may the signed-in person still follow, answer or stop a run on this page?
 * Asked again on every later request of a run (a person demoted mid-run loses it); the panel's
 * server also checks that the run is theirs.
 */
export const askCheck = panelProcedure.input(PageRefSchema).query(async ({ ctx, input }) => {
  const { page } = await requirePage(ctx, input, "page_write");
  return { userId: ctx.token.userId, documentId: page.id };
});
