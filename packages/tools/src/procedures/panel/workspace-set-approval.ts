import { IdSchema } from "@mnote/contract";
import { AppError } from "../../app-error";
import { z } from "zod";
import { panelProcedure } from "../../panel/panel-procedure";
import { mayChangeApproval } from "../../panel/rules";

export const WorkspaceSetApprovalInput = z.object({
  workspaceId: IdSchema,
  approvalRequired: z.boolean(),
  /** What the policy holds besides page writes: agents' artifacts too (left out: unchanged). */
  holdArtifacts: z.boolean().optional(),
});

/**
 * panel.workspace.setApproval — owners decide whether agent page writes wait for a person. The kernel's one
 * policy function writes the change and its audit record (who: the signed-in owner; from, to; via the panel).
 */
export const workspaceSetApproval = panelProcedure.input(WorkspaceSetApprovalInput).mutation(async ({ ctx, input }) => {
  const workspaces = await ctx.kernel.admin.listWorkspaces(ctx.token.userId);
  if (!mayChangeApproval(workspaces.find((w) => w.id === input.workspaceId)?.role)) {
    throw new AppError("mnote_tool_permission_denied", "only a workspace owner changes the approval policy");
  }
  await ctx.kernel.admin.setWorkspacePolicy(
    input.workspaceId,
    { approvalRequired: input.approvalRequired, holdArtifacts: input.holdArtifacts },
    { by: ctx.token.userId, via: "panel" },
  );
  return input;
});
