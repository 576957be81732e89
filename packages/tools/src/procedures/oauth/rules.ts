import { CAPABILITIES, type Capability } from "@mnote/contract";
import type { OAuthServerSettings, ToolsContext } from "../../context";
import { fail } from "../../app-error";

/**
 * The authorization server's rules, in one place (decision 0027). An error here is an OAuth error code
 * (RFC 6749 §4.1.2.1 and §5.2, RFC 7591 §3.2.2, RFC 8707 §2): the panel's routes answer it as the standard says.
 */
export type OAuthErrorCode =
  | "invalid_request"
  | "invalid_client"
  | "invalid_grant"
  | "unauthorized_client"
  | "unsupported_grant_type"
  | "unsupported_response_type"
  | "invalid_scope"
  | "invalid_target"
  | "access_denied"
  | "invalid_redirect_uri"
  | "invalid_client_metadata";

export interface OAuthError {
  ok: false;
  error: OAuthErrorCode;
  description: string;
}

export const oauthError = (error: OAuthErrorCode, description: string): OAuthError => ({
  ok: false,
  error,
  description,
});

/** Lifetimes: an access secret lasts an hour, a grant 30 days past its last refresh; a code 5 minutes. */
export const OAUTH_DEFAULTS = { accessTtlSeconds: 3600, refreshTtlSeconds: 30 * 86_400 } as const;
export const CODE_TTL_SECONDS = 300;
/** How long the consent page may stay open before its form is refused. */
export const CONSENT_TTL_SECONDS = 600;

/** The server's settings, or the contract's refusal when this process is no authorization server. */
export function oauthSettings(ctx: ToolsContext): OAuthServerSettings {
  const settings = ctx.settings.oauth;
  if (!settings) return fail("mnote_tool_unavailable", "this panel is not an OAuth authorization server");
  return settings;
}

const LOOPBACK = new Set(["127.0.0.1", "[::1]", "localhost"]);

/**
 * A redirect URI a client may register: https, or http on a loopback address (RFC 8252 §7.3, where native clients
 * such as Hermes listen); absolute, no fragment (RFC 6749 §3.1.2). Null when acceptable, else why not.
 */
export function redirectUriProblem(uri: string): string | null {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return `${JSON.stringify(uri.slice(0, 100))} is not an absolute URL`;
  }
  if (url.hash) return "a redirect URI has no fragment";
  if (url.username || url.password) return "a redirect URI carries no credentials";
  if (url.protocol === "https:") return null;
  if (url.protocol === "http:" && LOOPBACK.has(url.hostname)) return null;
  return "a redirect URI is https, or http on 127.0.0.1, [::1] or localhost";
}

/** The scopes asked for (space-separated capabilities), or null when one is not an mnote capability. */
export function parseScopes(scope: string | null | undefined): Capability[] | null {
  const asked = (scope ?? "").split(" ").filter(Boolean);
  if (!asked.every((item) => (CAPABILITIES as readonly string[]).includes(item))) return null;
  return [...new Set(asked)] as Capability[];
}

/** An RFC 8707 resource, compared as its normalized URL; null for a value that is not one. */
export function normalizeResource(resource: string): string | null {
  try {
    const url = new URL(resource);
    return url.hash ? null : url.href;
  } catch {
    return null;
  }
}

/** The resource asked for, if it is one this server issues for (the default when none was named). */
export function resourceFor(settings: OAuthServerSettings, asked: string | null | undefined): string | null {
  if (!asked) return settings.resources[0] ?? null;
  const normalized = normalizeResource(asked);
  return settings.resources.find((resource) => normalizeResource(resource) === normalized) ?? null;
}

/** The client's redirect URI with the answer's parameters (RFC 6749 §4.1.2, RFC 9207's `iss`). */
export function redirectWith(redirectUri: string, params: Record<string, string | null | undefined>): string {
  const url = new URL(redirectUri);
  for (const [key, value] of Object.entries(params)) if (value) url.searchParams.set(key, value);
  return url.href;
}
