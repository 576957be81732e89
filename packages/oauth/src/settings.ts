import type { ClientDocumentSource } from "./client-document";

/** What the authorization server issues for, for how long, and whether it reads clients' metadata documents. */
export interface OAuthServerSettings {
  /** The panel's origin: the issuer in its metadata (RFC 8414) and in every authorization response (RFC 9207). */
  issuer: string;
  /** The bridges' /mcp URLs a token may be bound to (RFC 8707); the first is the default when a client names none. */
  resources: string[];
  accessTtlSeconds: number;
  refreshTtlSeconds: number;
  /**
   * Where clients whose client_id is an https URL are read from (Client ID Metadata Documents, MCP 2026-07-28);
   * null or absent: such clients are refused and the metadata does not offer them.
   */
  clientDocuments?: ClientDocumentSource | null;
}

/** Lifetimes: an access secret lasts an hour, a grant 30 days past its last refresh. */
export const OAUTH_DEFAULTS = { accessTtlSeconds: 3600, refreshTtlSeconds: 30 * 86_400 } as const;
/** A code is redeemed within 5 minutes or never. */
export const CODE_TTL_SECONDS = 300;
/** How long the consent page may stay open before its form is refused. */
export const CONSENT_TTL_SECONDS = 600;

/** Where the panel answers (the RFC 8414 document is also at its well-known address, through a rewrite). */
export const OAUTH_PATHS = {
  metadata: "/.well-known/oauth-authorization-server",
  authorize: "/oauth/authorize",
  token: "/oauth/token",
  register: "/oauth/register",
} as const;
