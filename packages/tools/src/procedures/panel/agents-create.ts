import { AppError } from "../../app-error";
import { AgentTokenCreateInput, personAudit, scopesBeyondSession } from "../../panel/agents";
import { panelProcedure } from "../../panel/panel-procedure";

/** panel.agents.create — an agent token for yourself; its secret is in this answer and never again. */
export const agentsCreate = panelProcedure.input(AgentTokenCreateInput).mutation(async ({ ctx, input }) => {
  const beyond = scopesBeyondSession(ctx, input.scopes);
  if (beyond.length > 0)
    throw new AppError("mnote_tool_permission_denied", `your session does not hold ${beyond.join(", ")}`);
  const { token, record } = await ctx.kernel.admin.createToken({
    userId: ctx.token.userId,
    holder: "agent",
    scopes: input.scopes,
    label: input.label,
    ttlSeconds: input.expiresInDays * 86_400,
    ...personAudit(ctx),
  });
  return { token, id: record.id, label: record.label, scopes: record.scopes, expiresAt: record.expiresAt };
});
