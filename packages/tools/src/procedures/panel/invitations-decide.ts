import { isAdminRefusal } from "@mnote/kernel";
import { AppError } from "../../app-error";
import { InvitationDecideInput } from "../../panel/invitations";
import { panelProcedure } from "../../panel/panel-procedure";

/**
 * panel.invitations.decide — the invited person accepts (then a member, with the invitation's role) or declines.
 * The kernel checks the invitation is pending and addressed to this person's email, and audits the answer
 * (`admin.member.invitation`) under them.
 */
export const invitationsDecide = panelProcedure.input(InvitationDecideInput).mutation(async ({ ctx, input }) => {
  try {
    const invitation = await ctx.kernel.admin.decideInvitation({
      invitationId: input.invitationId,
      userId: ctx.token.userId,
      accept: input.accept,
    });
    return {
      invitationId: invitation.id,
      workspaceId: invitation.workspaceId,
      outcome: input.accept ? ("accepted" as const) : ("declined" as const),
    };
  } catch (error) {
    if (isAdminRefusal(error)) throw new AppError("mnote_tool_not_found", "invitation not found");
    throw error;
  }
});
