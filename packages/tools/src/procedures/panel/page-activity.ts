import { PageRefSchema, panelProcedure, requirePage } from "./panel-procedure";

/** panel.page.activity — a cheap cursor the panel polls to show agent activity without a reload. */
export const pageActivity = panelProcedure.input(PageRefSchema).query(async ({ ctx, input }) => {
  const { page } = await requirePage(ctx, input);
  const [latest] = await ctx.kernel.listAudit({ documentId: page.id, limit: 1 });
  return { revision: page.revision, lastAuditId: latest?.id ?? 0 };
});
