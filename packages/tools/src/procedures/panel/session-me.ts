import { panelProcedure } from "../../panel/panel-procedure";

/** panel.session.me — who is signed in, and the workspaces they belong to. */
export const sessionMe = panelProcedure.query(async ({ ctx }) => {
  const user = await ctx.kernel.admin.getUser(ctx.token.userId);
  const workspaces = await ctx.kernel.admin.listWorkspaces(ctx.token.userId);
  return { user, tokenId: ctx.token.id, scopes: ctx.token.scopes, workspaces };
});
