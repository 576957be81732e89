import { asPanelRefusal, MemberInviteInput, requireOwner } from "../../panel/members";
import { panelProcedure } from "../../panel/panel-procedure";

/**
 * panel.members.invite — invite an email to the workspace with a role (issue 31). No user is looked up: the answer
 * is the same whether or not anyone has the email, so an owner learns nothing about people outside the workspace
 * (no id, no name, no "unknown email"), and nobody joins a workspace without saying yes. The person the email
 * belongs to sees the invitation after signing in and accepts or declines it (panel.invitations.*). Audited as
 * `admin.member.invite` under the owner.
 */
export const membersInvite = panelProcedure.input(MemberInviteInput).mutation(async ({ ctx, input }) => {
  await requireOwner(ctx, input.workspaceId);
  await asPanelRefusal(
    ctx,
    ctx.kernel.admin.inviteMember({
      workspaceId: input.workspaceId,
      email: input.email,
      role: input.role,
      by: ctx.token.userId,
    }),
  );
  return { workspaceId: input.workspaceId, email: input.email, role: input.role, invited: true as const };
});
