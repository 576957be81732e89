/**
 * The authorization server's error model (decision 0027): an OAuth error code (RFC 6749 §4.1.2.1 and §5.2, RFC 7591
 * §3.2.2, RFC 8707 §2) and a sentence for the person or the developer reading it. Every rule of this package answers
 * one of these or its result; the panel's routes write it as the standard says (JSON, or the consent page's words).
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
  | "invalid_client_metadata"
  | "temporarily_unavailable";

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

export const isOAuthError = (value: unknown): value is OAuthError =>
  typeof value === "object" && value !== null && (value as { ok?: unknown }).ok === false && "error" in value;

/** A caller's text quoted in a description: clipped, so a megabyte of URL never comes back. */
export const quoted = (text: string, max = 200) => JSON.stringify(text.length > max ? `${text.slice(0, max)}…` : text);
