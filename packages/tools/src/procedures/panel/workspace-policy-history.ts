import { IdSchema } from "@mnote/contract";
import { WORKSPACE_POLICY_AUDIT, type WorkspacePolicy } from "@mnote/kernel";
import { z } from "zod";
import { AppError } from "../../app-error";
import { panelProcedure } from "../../panel/panel-procedure";

export const WorkspacePolicyHistoryInput = z.object({
  workspaceId: IdSchema,
  limit: z.number().int().min(1).max(200).optional(),
});

/** One change of a workspace's approval policy, as the panel shows it. */
export interface PolicyChange {
  id: number;
  at: string;
  /** The user id, or `operator:<login>` for the CLI. */
  by: string;
  /** The user's name; null for an operator or a removed user. */
  byName: string | null;
  via: "panel" | "cli" | null;
  from: WorkspacePolicy;
  to: WorkspacePolicy;
}

/** panel.workspace.policyHistory — every change of the workspace's approval policy, newest first (its members). */
export const workspacePolicyHistory = panelProcedure
  .input(WorkspacePolicyHistoryInput)
  .query(async ({ ctx, input }): Promise<PolicyChange[]> => {
    const workspaces = await ctx.kernel.admin.listWorkspaces(ctx.token.userId);
    if (!workspaces.some((w) => w.id === input.workspaceId)) {
      throw new AppError("mnote_tool_permission_denied", "only a member of the workspace reads its policy history");
    }
    const records = await ctx.kernel.listAudit({
      workspaceId: input.workspaceId,
      toolName: WORKSPACE_POLICY_AUDIT,
      limit: input.limit ?? 50,
    });
    const names = await ctx.kernel.getDisplayNames({ userIds: records.map((r) => r.identity.actorId), tokenIds: [] });
    return records.map((record) => {
      const detail = (record.detail ?? {}) as { from?: WorkspacePolicy; to?: WorkspacePolicy; via?: string | null };
      return {
        id: record.id,
        at: record.at,
        by: record.identity.actorId,
        byName: names.users[record.identity.actorId] ?? null,
        via: detail.via === "panel" || detail.via === "cli" ? detail.via : null,
        from: { approvalRequired: false, holdArtifacts: false, ...detail.from },
        to: { approvalRequired: false, holdArtifacts: false, ...detail.to },
      };
    });
  });
