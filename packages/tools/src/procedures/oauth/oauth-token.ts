import type { OAuthGrantError } from "@mnote/kernel";
import {
  clientIdUrlProblem,
  CODE_VERIFIER,
  isClientIdUrl,
  normalizeResource,
  oauthError,
  resourceFor,
  TokenParamsSchema,
  verifierMatches,
} from "@mnote/oauth";
import { findClient } from "./clients";
import { oauthProcedure } from "./oauth-procedure";

/**
 * oauth.token — the token endpoint: an authorization code with its PKCE verifier, or a refresh token, for an
 * hour-long agent token bound to the resource. Every refusal is the standard error and changes nothing: a code whose
 * presenter fails its checks stays good for its own client and verifier (decision 0027).
 */
export const oauthToken = oauthProcedure.input(TokenParamsSchema).mutation(async ({ ctx, input }) => {
  const lifetimes = { accessTtlSeconds: ctx.oauth.accessTtlSeconds, refreshTtlSeconds: ctx.oauth.refreshTtlSeconds };
  if (!input.clientId) return oauthError("invalid_request", "client_id is required");

  if (input.grantType === "authorization_code") {
    const found = await findClient(ctx, input.clientId);
    if (!found.ok) return found;
    const { client } = found;
    if (!input.code) return oauthError("invalid_request", "code is required");
    if (!input.codeVerifier || !CODE_VERIFIER.test(input.codeVerifier))
      return oauthError("invalid_request", "code_verifier is required: 43 to 128 characters of [A-Za-z0-9-._~]");
    if (input.resource && !resourceFor(ctx.oauth, input.resource))
      return oauthError("invalid_target", "this server issues no tokens for that resource");
    const verifier = input.codeVerifier;
    const outcome = await ctx.kernel.oauth.redeemCode({
      code: input.code,
      label: `${client.clientName} (OAuth)`,
      ...lifetimes,
      check: (request): OAuthGrantError | null => {
        if (request.clientId !== client.clientId)
          return { error: "invalid_grant", description: "the code was issued to another client" };
        if (input.redirectUri !== undefined && input.redirectUri !== request.redirectUri)
          return { error: "invalid_grant", description: "redirect_uri differs from the authorization request's" };
        if (!verifierMatches(verifier, request.codeChallenge))
          return { error: "invalid_grant", description: "the PKCE code_verifier does not match the code_challenge" };
        if (input.resource && normalizeResource(input.resource) !== normalizeResource(request.resource))
          return { error: "invalid_target", description: "the code was issued for another resource" };
        return null;
      },
    });
    if ("error" in outcome) return oauthError(outcome.error, outcome.description);
    return { ok: true as const, tokens: outcome };
  }

  if (input.grantType === "refresh_token") {
    // The grant names its client: a registered one must still exist; a document's URL is compared as it is, with no
    // fetch (an unreachable document must not end a live grant, and refreshing proves nothing a fetch would add).
    if (isClientIdUrl(input.clientId)) {
      const problem = clientIdUrlProblem(input.clientId, true);
      if (problem) return oauthError("invalid_client", problem);
    } else {
      const found = await findClient(ctx, input.clientId);
      if (!found.ok) return found;
    }
    if (!input.refreshToken) return oauthError("invalid_request", "refresh_token is required");
    let resource: string | null = null;
    if (input.resource) {
      resource = resourceFor(ctx.oauth, input.resource);
      if (!resource) return oauthError("invalid_target", "this server issues no tokens for that resource");
    }
    const outcome = await ctx.kernel.oauth.refresh({
      refreshToken: input.refreshToken,
      clientId: input.clientId,
      resource,
      ...lifetimes,
    });
    if ("error" in outcome) return oauthError(outcome.error, outcome.description);
    return { ok: true as const, tokens: outcome };
  }

  return oauthError(
    "unsupported_grant_type",
    input.grantType ? "grant types are authorization_code and refresh_token" : "grant_type is required",
  );
});
