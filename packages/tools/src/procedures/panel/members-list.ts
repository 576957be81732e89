import { requireMember, WorkspaceRefInput } from "./members";
import { panelProcedure } from "./panel-procedure";

/** panel.members.list — a workspace's members (any member sees them), and whether you may manage them. */
export const membersList = panelProcedure.input(WorkspaceRefInput).query(async ({ ctx, input }) => {
  const role = await requireMember(ctx, input.workspaceId);
  const members = await ctx.kernel.admin.listMembers(input.workspaceId);
  return { members, canManage: role === "owner", you: ctx.token.userId };
});
