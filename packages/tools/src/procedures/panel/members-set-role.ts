import { asPanelRefusal, MemberRoleInput, requireOwner } from "../../panel/members";
import { panelProcedure } from "../../panel/panel-procedure";

/** panel.members.setRole — the kernel refuses a non-member and demoting the last owner. */
export const membersSetRole = panelProcedure.input(MemberRoleInput).mutation(async ({ ctx, input }) => {
  await requireOwner(ctx, input.workspaceId);
  await asPanelRefusal(ctx, ctx.kernel.admin.setMemberRole({ ...input, by: ctx.token.userId }));
  return input;
});
