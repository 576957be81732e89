import { verifyChallenge } from "pkce-challenge";
import type { OAuthGrantError } from "@mnote/kernel";
import { z } from "zod";
import { publicProcedure } from "../../trpc";
import { appErrors } from "../panel/app-errors";
import { normalizeResource, oauthError, oauthSettings, resourceFor } from "./rules";

const text = z.string().max(2000).optional();

/** The token request's form fields (RFC 6749 §4.1.3 and §6, RFC 7636 §4.5, RFC 8707 §2.2). */
export const OAuthTokenInput = z.object({
  grantType: text,
  code: text,
  codeVerifier: text,
  redirectUri: text,
  clientId: text,
  refreshToken: text,
  resource: text,
});

/** RFC 7636 §4.1: 43 to 128 unreserved characters. */
const VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;

/**
 * oauth.token — the token endpoint: an authorization code with its PKCE verifier, or a refresh token, for an
 * hour-long agent token bound to the resource. Every refusal is the standard error, and grants nothing.
 */
export const oauthToken = publicProcedure
  .use(appErrors)
  .input(OAuthTokenInput)
  .mutation(async ({ ctx, input }) => {
    const settings = oauthSettings(ctx);
    const lifetimes = { accessTtlSeconds: settings.accessTtlSeconds, refreshTtlSeconds: settings.refreshTtlSeconds };
    if (!input.clientId) return oauthError("invalid_request", "client_id is required");
    const client = await ctx.kernel.oauth.getClient(input.clientId);
    if (!client) return oauthError("invalid_client", "no client is registered with this client_id");

    if (input.grantType === "authorization_code") {
      if (!input.code) return oauthError("invalid_request", "code is required");
      if (!input.codeVerifier || !VERIFIER.test(input.codeVerifier))
        return oauthError("invalid_request", "code_verifier is required: 43 to 128 characters of [A-Za-z0-9-._~]");
      if (input.resource && !resourceFor(settings, input.resource))
        return oauthError("invalid_target", "this server issues no tokens for that resource");
      const verifier = input.codeVerifier;
      const outcome = await ctx.kernel.oauth.redeemCode({
        code: input.code,
        label: `${client.clientName} (OAuth)`,
        ...lifetimes,
        check: async (request): Promise<OAuthGrantError | null> => {
          if (request.clientId !== client.clientId)
            return { error: "invalid_grant", description: "the code was issued to another client" };
          if (input.redirectUri !== undefined && input.redirectUri !== request.redirectUri)
            return { error: "invalid_grant", description: "redirect_uri differs from the authorization request's" };
          if (!(await verifyChallenge(verifier, request.codeChallenge)))
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
      if (!input.refreshToken) return oauthError("invalid_request", "refresh_token is required");
      let resource: string | null = null;
      if (input.resource) {
        resource = resourceFor(settings, input.resource);
        if (!resource) return oauthError("invalid_target", "this server issues no tokens for that resource");
      }
      const outcome = await ctx.kernel.oauth.refresh({
        refreshToken: input.refreshToken,
        clientId: client.clientId,
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
