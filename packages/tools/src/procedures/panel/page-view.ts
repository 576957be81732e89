import { canWritePage } from "../../access";
import { PageRefSchema, panelProcedure, requirePage } from "../../panel/panel-procedure";
import { mayChangeApproval } from "../../panel/rules";

/** panel.page.view — the page as the person may see it, with what they may do on it. */
export const pageView = panelProcedure.input(PageRefSchema).query(async ({ ctx, input }) => {
  const { page, role, workspace, facts } = await requirePage(ctx, input);
  return {
    page,
    blocks: await ctx.kernel.getBlocks(page.id),
    role,
    canWrite: canWritePage(facts),
    /** The person may switch the workspace's approval policy (its owners): the panel shows the switch. */
    mayChangeApproval: mayChangeApproval(role),
    workspace: {
      id: workspace.id,
      name: workspace.name,
      approvalRequired: workspace.approvalRequired,
      holdArtifacts: workspace.holdArtifacts,
    },
  };
});
