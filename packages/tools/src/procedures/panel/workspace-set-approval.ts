import { IdSchema } from "@mnote/contract";
import { z } from "zod";
import { panelProcedure } from "./panel-procedure";
import { AppError } from "../../app-error";

export const WorkspaceSetApprovalInput = z.object({ workspaceId: IdSchema, approvalRequired: z.boolean() });

/** panel.workspace.setApproval — owners decide whether agent page writes wait for a person. */
export const workspaceSetApproval = panelProcedure.input(WorkspaceSetApprovalInput).mutation(async ({ ctx, input }) => {
  const workspaces = await ctx.kernel.admin.listWorkspaces(ctx.token.userId);
  if (workspaces.find((w) => w.id === input.workspaceId)?.role !== "owner") {
    throw new AppError("mnote_tool_permission_denied", "only a workspace owner changes the approval policy");
  }
  await ctx.kernel.admin.setApprovalRequired(input.workspaceId, input.approvalRequired);
  return input;
});
