import { AgentTokenRefInput, personAudit, requireOwnAgentToken } from "../../panel/agents";
import { panelProcedure } from "../../panel/panel-procedure";

/** panel.agents.revoke — one of your agent tokens stops working on its next call. */
export const agentsRevoke = panelProcedure.input(AgentTokenRefInput).mutation(async ({ ctx, input }) => {
  await requireOwnAgentToken(ctx, input.tokenId);
  await ctx.kernel.admin.revokeToken(input.tokenId, personAudit(ctx));
  return { tokenId: input.tokenId, revoked: true };
});
