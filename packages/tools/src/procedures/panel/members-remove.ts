import { asPanelRefusal, MemberRefInput, requireOwner } from "../../panel/members";
import { panelProcedure } from "../../panel/panel-procedure";

/** panel.members.remove — takes effect on the member's next call; the kernel keeps the last owner. */
export const membersRemove = panelProcedure.input(MemberRefInput).mutation(async ({ ctx, input }) => {
  await requireOwner(ctx, input.workspaceId);
  await asPanelRefusal(ctx, ctx.kernel.admin.removeMember({ ...input, by: ctx.token.userId }));
  return { ...input, removed: true };
});
