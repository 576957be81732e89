import type { Capability } from "@mnote/contract";
import { hashToken, type TokenHolder, type TokenRecord } from "@mnote/kernel";
import type { IncomingMessage } from "node:http";
import { bearerSecret } from "@mnote/tools";
import { headerValue } from "./headers";

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

/**
 * The client's address: the TCP peer, unless the peer is a trusted proxy (a load balancer in
 * front of several bridges, MNOTE_BRIDGE_TRUSTED_PROXIES): then the nearest X-Forwarded-For
 * entry that is not itself a trusted proxy. An untrusted peer's X-Forwarded-For is ignored,
 * so a client cannot pick its own address to dodge the failed-authentication limit.
 */
export function clientAddress(req: IncomingMessage, trustedProxies: readonly string[]): string {
  const peer = normalizeAddress(req.socket.remoteAddress ?? "unknown");
  if (!trustedProxies.length || !trustedProxies.includes(peer)) return peer;
  const forwarded = (headerValue(req.headers["x-forwarded-for"]) ?? "")
    .split(",")
    .map((part) => normalizeAddress(part.trim()))
    .filter(Boolean);
  for (let i = forwarded.length - 1; i >= 0; i--) {
    if (!trustedProxies.includes(forwarded[i]!)) return forwarded[i]!.slice(0, 64);
  }
  return peer;
}

/** `::ffff:127.0.0.1` (an IPv4 peer on a dual-stack socket) is 127.0.0.1. */
function normalizeAddress(address: string): string {
  return address.startsWith("::ffff:") ? address.slice("::ffff:".length) : address;
}
