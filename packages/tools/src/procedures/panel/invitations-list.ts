import { panelProcedure } from "../../panel/panel-procedure";

/** panel.invitations.list — the workspaces that invited the signed-in person's email, waiting for their answer. */
export const invitationsList = panelProcedure.query(async ({ ctx }) => {
  const invitations = await ctx.kernel.admin.listInvitationsForUser(ctx.token.userId);
  return invitations.map(({ id, workspaceId, workspaceName, role, invitedByName, createdAt }) => ({
    id,
    workspaceId,
    workspaceName,
    role,
    invitedByName,
    createdAt,
  }));
});
