import { CAPABILITIES, CapabilitySchema, storable } from "@mnote/contract";
import type { TokenListing } from "@mnote/kernel";
import { AppError } from "../app-error";
import { z } from "zod";
import type { PersonContext } from "./panel-procedure";

/**
 * "Connect an agent" (issue 23): a person mints, lists and revokes tokens for software acting for them. Such a
 * token's holder is `agent`, so it opens only the agent doors (bridge, MCP, `mnote call`) and the workspace's
 * approval policy holds its page writes, as for every agent. It can do no more than the session that made it.
 */
export const AGENT_TOKEN_MAX_DAYS = 365;

export const AgentTokenCreateInput = z.object({
  label: storable(z.string().trim().min(1, "name the agent").max(80)),
  scopes: z.array(CapabilitySchema).min(1, "pick at least one scope").max(CAPABILITIES.length),
  expiresInDays: z.number().int().min(1).max(AGENT_TOKEN_MAX_DAYS),
});

export const AgentTokenRefInput = z.object({ tokenId: storable(z.string()).min(1).max(100) });

/** What the panel lists of an agent token: never its secret (the kernel keeps only a hash). */
export type AgentTokenItem = Pick<
  TokenListing,
  "id" | "label" | "scopes" | "createdAt" | "expiresAt" | "revokedAt" | "lastUsedAt"
> & { live: boolean };

/** The audit names the person who acted, as the CLI's records name the operator. */
export const personAudit = (ctx: PersonContext) => ({ by: ctx.token.userId });

export async function agentTokensOf(ctx: PersonContext): Promise<AgentTokenItem[]> {
  const now = ctx.clock.now().toISOString();
  return (await ctx.kernel.admin.listTokens(ctx.token.userId))
    .filter((token) => token.holder === "agent")
    .map(({ id, label, scopes, createdAt, expiresAt, revokedAt, lastUsedAt }) => ({
      id,
      label,
      scopes,
      createdAt,
      expiresAt,
      revokedAt,
      lastUsedAt,
      live: !revokedAt && (!expiresAt || expiresAt > now),
    }));
}

/** A scope the session does not hold cannot be handed to an agent. */
export function scopesBeyondSession(ctx: PersonContext, scopes: readonly string[]): string[] {
  return scopes.filter((scope) => !(ctx.token.scopes as string[]).includes(scope));
}

export async function requireOwnAgentToken(ctx: PersonContext, tokenId: string): Promise<AgentTokenItem> {
  const token = (await agentTokensOf(ctx)).find((item) => item.id === tokenId);
  if (!token) throw new AppError("mnote_tool_not_found", "no agent token of yours has this id");
  return token;
}
