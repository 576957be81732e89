import { PageRefSchema, panelProcedure, requirePage } from "../../panel/panel-procedure";

/** panel.artifacts.list — the page's summary and AI notes with their reference edges, and their authors' names. */
export const artifactsList = panelProcedure.input(PageRefSchema).query(async ({ ctx, input }) => {
  const { page } = await requirePage(ctx, input);
  const { nodes, edges } = await ctx.kernel.listArtifacts(page.id);
  const names = await ctx.kernel.getDisplayNames({ userIds: nodes.map((node) => node.createdBy), tokenIds: [] });
  return { nodes: nodes.map((node) => ({ ...node, createdByName: names.users[node.createdBy] ?? null })), edges };
});
