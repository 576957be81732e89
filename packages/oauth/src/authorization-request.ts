import type { Capability } from "@mnote/contract";
import { z } from "zod";
import type { OAuthClient } from "./client";
import { oauthError, type OAuthError } from "./errors";
import { S256_CHALLENGE } from "./pkce";
import { resourceFor } from "./resource";
import { parseScopes } from "./scopes";
import type { OAuthServerSettings } from "./settings";

const param = z.string().max(2000).optional();

/** The authorization request's query parameters (RFC 6749 §4.1.1, RFC 7636 §4.3, RFC 8707 §2.1), as the router takes them. */
export const AuthorizationParamsSchema = z.object({
  responseType: param,
  clientId: param,
  redirectUri: param,
  scope: param,
  state: param,
  codeChallenge: param,
  codeChallengeMethod: param,
  resource: param,
});
export type AuthorizationParams = z.infer<typeof AuthorizationParamsSchema>;

const QUERY_NAMES: Record<keyof AuthorizationParams, string> = {
  responseType: "response_type",
  clientId: "client_id",
  redirectUri: "redirect_uri",
  scope: "scope",
  state: "state",
  codeChallenge: "code_challenge",
  codeChallengeMethod: "code_challenge_method",
  resource: "resource",
};

/** The request's parameters from its query; a parameter sent twice is refused (RFC 6749 §3.1). */
export function authorizationParams(query: URLSearchParams): { ok: true; params: AuthorizationParams } | OAuthError {
  return paramsOnce(query, QUERY_NAMES);
}

/**
 * The named parameters of a query or form, each taken once: "Request and response parameters MUST NOT be included
 * more than once" (RFC 6749 §3.1), so a second value is refused rather than one of them picked.
 */
export function paramsOnce<K extends string>(
  query: URLSearchParams,
  names: Record<K, string>,
): { ok: true; params: Partial<Record<K, string>> } | OAuthError {
  const params: Partial<Record<K, string>> = {};
  for (const [key, name] of Object.entries(names) as Array<[K, string]>) {
    const values = query.getAll(name);
    if (values.length > 1) return oauthError("invalid_request", `${name} is sent more than once`);
    if (values.length === 1) params[key] = values[0];
  }
  return { ok: true, params };
}

/** The same parameters as a query again (what a signed-out person's request waits as while they sign in). */
export function authorizationQuery(params: AuthorizationParams): URLSearchParams {
  const query = new URLSearchParams();
  for (const [key, name] of Object.entries(QUERY_NAMES) as Array<[keyof AuthorizationParams, string]>)
    if (params[key] !== undefined) query.set(name, params[key]);
  return query;
}

/** A request every rule passed: what the consent page asks about, and what a consent request records. */
export interface VettedRequest {
  client: OAuthClient;
  redirectUri: string;
  codeChallenge: string;
  resource: string;
  /** The capabilities asked for; empty: none named, all the person holds. */
  scopes: Capability[];
  state: string | null;
}

/**
 * The authorization request's rules, all of them, before anyone is asked anything (decision 0027). `client` is what
 * the client_id names (null: nothing). A problem is answered on the authorization server's own page and never sent to
 * the redirect URI: every client here is anonymous (registered by anyone, or a document anyone can publish), so a
 * redirect URI is not trusted until a person has read it on the consent page and chosen to answer (RFC 9700 §4.11.2).
 */
export function checkAuthorizationRequest(
  settings: OAuthServerSettings,
  client: OAuthClient | null,
  params: AuthorizationParams,
): { ok: true; request: VettedRequest } | OAuthError {
  if (!client) return oauthError("invalid_client", "no client is registered with this client_id");
  const redirectUri = params.redirectUri ?? (client.redirectUris.length === 1 ? client.redirectUris[0] : undefined);
  if (!redirectUri || !client.redirectUris.includes(redirectUri))
    return oauthError(
      "invalid_request",
      client.kind === "document"
        ? "redirect_uri is not one the client's metadata document names"
        : "redirect_uri is not one this client registered",
    );
  if (params.responseType !== "code") return oauthError("unsupported_response_type", "response_type must be code");
  if (params.codeChallengeMethod !== "S256")
    return oauthError("invalid_request", "PKCE with code_challenge_method S256 is required (plain is not accepted)");
  if (!params.codeChallenge || !S256_CHALLENGE.test(params.codeChallenge))
    return oauthError("invalid_request", "code_challenge must be an S256 challenge (43 base64url characters)");
  const resource = resourceFor(settings, params.resource);
  if (!resource) return oauthError("invalid_target", "this server issues no tokens for that resource");
  const scopes = parseScopes(params.scope ?? client.scope);
  if (!scopes)
    return oauthError("invalid_scope", "scope names mnote capabilities: page.read, page.write, artifact.write");
  return {
    ok: true,
    request: {
      client,
      redirectUri,
      codeChallenge: params.codeChallenge,
      resource,
      scopes,
      state: params.state ?? null,
    },
  };
}
