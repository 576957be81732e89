import { AppError } from "../../app-error";
import { asPanelRefusal, MemberInviteInput, requireOwner } from "./members";
import { panelProcedure } from "./panel-procedure";

/**
 * panel.members.invite — add a user who exists, found by email, with a role (or set the role of one already
 * in: the CLI's `member add`). Users are made by an operator or the identity provider's sign-in, never here.
 */
export const membersInvite = panelProcedure.input(MemberInviteInput).mutation(async ({ ctx, input }) => {
  await requireOwner(ctx, input.workspaceId);
  const user = await ctx.kernel.admin.findUserByEmail(input.email);
  if (!user)
    throw new AppError(
      "mnote_tool_not_found",
      `no mnote user has the email ${input.email}; an operator adds people (mnote admin user create --email)`,
    );
  await asPanelRefusal(
    ctx.kernel.admin.addMember({
      workspaceId: input.workspaceId,
      userId: user.id,
      role: input.role,
      by: ctx.token.userId,
    }),
  );
  return { workspaceId: input.workspaceId, userId: user.id, name: user.name, role: input.role };
});
