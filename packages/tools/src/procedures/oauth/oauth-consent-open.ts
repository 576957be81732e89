import { AuthorizationParamsSchema, CONSENT_TTL_SECONDS, grantableScopes, oauthError } from "@mnote/oauth";
import { consentClient, vetRequest } from "./clients";
import { consentProcedure } from "./oauth-procedure";

/**
 * oauth.consent.open — the consent page's question, for the signed-in person: the request checked in full again
 * (it may have waited while they signed in), the scopes cut to what their session holds, and a consent request opened
 * whose secret the page's form carries (its CSRF token). A problem is the standard error for the page; it is never
 * sent to the client's redirect URI (decision 0027).
 */
export const oauthConsentOpen = consentProcedure.input(AuthorizationParamsSchema).mutation(async ({ ctx, input }) => {
  const vetted = await vetRequest(ctx, input);
  if (!vetted.ok) return vetted;
  const { request } = vetted;
  const scopes = grantableScopes(request.scopes, ctx.token.scopes);
  if (scopes.length === 0) return oauthError("invalid_scope", "you hold none of the scopes asked for");
  const { requestSecret } = await ctx.kernel.oauth.openRequest({
    sessionTokenId: ctx.token.id,
    userId: ctx.token.userId,
    clientId: request.client.clientId,
    redirectUri: request.redirectUri,
    codeChallenge: request.codeChallenge,
    resource: request.resource,
    scopes,
    state: request.state,
    ttlSeconds: CONSENT_TTL_SECONDS,
  });
  const workspaces = await ctx.kernel.admin.listWorkspaces(ctx.token.userId);
  const user = await ctx.kernel.admin.getUser(ctx.token.userId);
  return {
    ok: true as const,
    requestSecret,
    client: consentClient(request),
    person: user?.name ?? ctx.token.userId,
    workspaces: workspaces.map(({ id, name, role }) => ({ id, name, role })),
    scopes,
    resource: request.resource,
  };
});
