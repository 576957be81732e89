import type { Capability } from "@mnote/contract";
import { hashToken, isTokenLive, type KernelAdapter, type TokenHolder, type TokenRecord } from "@mnote/kernel";
import { bearerSecret } from "@mnote/tools";


/**
 * The token behind an `Authorization` value: issued by mnote, not revoked, not expired.
 * The router makes the same check on every tool call (that one is authoritative); the
 * bridge needs it only where no tool runs: `/v1/whoami` and binding an MCP session.
 */
export async function resolveToken(kernel: KernelAdapter, authorization: string | null | undefined): Promise<TokenRecord | null> {
  const secret = bearerSecret(authorization);
  if (!secret) return null;
  const token = await kernel.findTokenByHash(hashToken(secret));
  return isTokenLive(token) ? token : null;
}

export interface WhoAmI {
  actorId: string;
  holder: TokenHolder;
  capabilityScope: Capability[];
  tokenId: string;
}

/** What a runtime (the Hermes plugin, the MCP server) puts into an envelope for this token. */
export function whoami(token: TokenRecord): WhoAmI {
  return { actorId: token.userId, holder: token.holder, capabilityScope: [...token.scopes], tokenId: token.id };
}

/** The rate-limit bucket of a request: the token's hash (never the secret), else the peer address. */
export function rateLimitKey(authorization: string | null | undefined, peer: string | undefined): string {
  const secret = bearerSecret(authorization);
  return secret ? `token:${hashToken(secret)}` : `anonymous:${peer ?? "unknown"}`;
}
