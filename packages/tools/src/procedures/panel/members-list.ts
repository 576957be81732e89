import { requireMember, WorkspaceRefInput } from "../../panel/members";
import { panelProcedure } from "../../panel/panel-procedure";

/**
 * panel.members.list — a workspace's members (any member sees them), and whether you may manage them. Its owners
 * also see the invitations still waiting for an answer (emails they or another owner typed; nothing more).
 */
export const membersList = panelProcedure.input(WorkspaceRefInput).query(async ({ ctx, input }) => {
  const role = await requireMember(ctx, input.workspaceId);
  const members = await ctx.kernel.admin.listMembers(input.workspaceId);
  const invitations =
    role === "owner"
      ? (await ctx.kernel.admin.listWorkspaceInvitations(input.workspaceId)).map(({ id, email, role, createdAt }) => ({
          id,
          email,
          role,
          createdAt,
        }))
      : [];
  return { members, invitations, canManage: role === "owner", you: ctx.token.userId };
});
