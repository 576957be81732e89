import { PageRefSchema, panelProcedure, requirePage } from "./panel-procedure";

/** panel.artifacts.list — the page's summary and AI notes with their reference edges. */
export const artifactsList = panelProcedure.input(PageRefSchema).query(async ({ ctx, input }) => {
  const { page } = await requirePage(ctx, input);
  return ctx.kernel.listArtifacts(page.id);
});
