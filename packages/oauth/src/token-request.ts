import { z } from "zod";
import { paramsOnce } from "./authorization-request";
import type { OAuthError } from "./errors";

const text = z.string().max(2000).optional();

/** The token request's form fields (RFC 6749 §4.1.3 and §6, RFC 7636 §4.5, RFC 8707 §2.2), as the router takes them. */
export const TokenParamsSchema = z.object({
  grantType: text,
  code: text,
  codeVerifier: text,
  redirectUri: text,
  clientId: text,
  refreshToken: text,
  resource: text,
});
export type TokenParams = z.infer<typeof TokenParamsSchema>;

const FIELD_NAMES: Record<keyof TokenParams, string> = {
  grantType: "grant_type",
  code: "code",
  codeVerifier: "code_verifier",
  redirectUri: "redirect_uri",
  clientId: "client_id",
  refreshToken: "refresh_token",
  resource: "resource",
};

/** The fields of a form-encoded token request; a field sent twice is refused (RFC 6749 §3.2). */
export function tokenParams(form: URLSearchParams): { ok: true; params: TokenParams } | OAuthError {
  return paramsOnce(form, FIELD_NAMES);
}
