import { z } from "zod";
import { oauthError, oauthSettings, parseScopes, redirectWith, resourceFor, CONSENT_TTL_SECONDS } from "../oauth/rules";
import { panelProcedure } from "./panel-procedure";

const param = z.string().max(2000).optional();

/** The authorization request's query parameters (RFC 6749 §4.1.1, RFC 7636 §4.3, RFC 8707 §2.1). */
export const OAuthAuthorizeInput = z.object({
  responseType: param,
  clientId: param,
  redirectUri: param,
  scope: param,
  state: param,
  codeChallenge: param,
  codeChallengeMethod: param,
  resource: param,
});

/** RFC 7636 §4.2: an S256 challenge is 43 base64url characters. */
const CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

/**
 * panel.oauth.open — the consent page's question, for the signed-in person. An unknown client or a redirect URI it
 * did not register is answered on the page, never sent anywhere (RFC 6749 §4.1.2.1); any other bad parameter goes
 * back to the client's redirect URI as the standard error. A good request opens a consent request whose secret the
 * form carries.
 */
export const oauthOpen = panelProcedure.input(OAuthAuthorizeInput).mutation(async ({ ctx, input }) => {
  const settings = oauthSettings(ctx);
  const client = input.clientId ? await ctx.kernel.oauth.getClient(input.clientId) : null;
  if (!client)
    return { kind: "error" as const, ...oauthError("invalid_client", "no client is registered with this client_id") };
  const redirectUri = input.redirectUri ?? (client.redirectUris.length === 1 ? client.redirectUris[0] : undefined);
  if (!redirectUri || !client.redirectUris.includes(redirectUri))
    return {
      kind: "error" as const,
      ...oauthError("invalid_request", "redirect_uri is not one this client registered"),
    };
  const back = (error: string, description: string) => ({
    kind: "redirect" as const,
    error,
    url: redirectWith(redirectUri, { error, error_description: description, state: input.state, iss: settings.issuer }),
  });
  if (input.responseType !== "code") return back("unsupported_response_type", "response_type must be code");
  if (input.codeChallengeMethod !== "S256")
    return back("invalid_request", "PKCE with code_challenge_method S256 is required (plain is not accepted)");
  if (!input.codeChallenge || !CHALLENGE.test(input.codeChallenge))
    return back("invalid_request", "code_challenge must be an S256 challenge (43 base64url characters)");
  const resource = resourceFor(settings, input.resource);
  if (!resource) return back("invalid_target", "this server issues no tokens for that resource");
  const asked = parseScopes(input.scope ?? client.scope);
  if (!asked) return back("invalid_scope", "scope names mnote capabilities: page.read, page.write, artifact.write");
  // No more than the person's session holds; none asked means all of it.
  const held = ctx.token.scopes;
  const scopes = asked.length ? asked.filter((scope) => held.includes(scope)) : [...held];
  if (scopes.length === 0) return back("invalid_scope", "you hold none of the scopes asked for");
  const { requestSecret } = await ctx.kernel.oauth.openRequest({
    sessionTokenId: ctx.token.id,
    userId: ctx.token.userId,
    clientId: client.clientId,
    redirectUri,
    codeChallenge: input.codeChallenge,
    resource,
    scopes,
    state: input.state ?? null,
    ttlSeconds: CONSENT_TTL_SECONDS,
  });
  const workspaces = await ctx.kernel.admin.listWorkspaces(ctx.token.userId);
  const user = await ctx.kernel.admin.getUser(ctx.token.userId);
  return {
    kind: "consent" as const,
    requestSecret,
    client: { id: client.clientId, name: client.clientName, redirectUri },
    person: user?.name ?? ctx.token.userId,
    workspaces: workspaces.map(({ id, name, role }) => ({ id, name, role })),
    scopes,
    resource,
  };
});
