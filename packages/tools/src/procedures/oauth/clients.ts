import type { SqlKernel } from "@mnote/kernel";
import {
  type AuthorizationParams,
  checkAuthorizationRequest,
  isClientIdUrl,
  oauthError,
  type OAuthClient,
  type OAuthError,
  type OAuthServerSettings,
  type VettedRequest,
} from "@mnote/oauth";

interface OAuthContext {
  kernel: SqlKernel;
  oauth: OAuthServerSettings;
}

/**
 * The client a client_id names: a URL is read from its metadata document (when this server reads them), anything
 * else is a registration the kernel keeps. Either way the answer is the client or the standard error.
 */
export async function findClient(
  ctx: OAuthContext,
  clientId: string | undefined,
): Promise<{ ok: true; client: OAuthClient } | OAuthError> {
  if (!clientId) return oauthError("invalid_request", "client_id is required");
  if (isClientIdUrl(clientId)) {
    if (!ctx.oauth.clientDocuments)
      return oauthError("invalid_client", "this server reads no client ID metadata documents; register the client");
    return ctx.oauth.clientDocuments.read(clientId);
  }
  const record = await ctx.kernel.oauth.getClient(clientId);
  if (!record) return oauthError("invalid_client", "no client is registered with this client_id");
  const { clientName, redirectUris, scope } = record;
  return { ok: true, client: { clientId, kind: "registered", clientName, redirectUris, scope } };
}

/** The authorization request checked in full: its client found, then every rule (`checkAuthorizationRequest`). */
export async function vetRequest(
  ctx: OAuthContext,
  params: AuthorizationParams,
): Promise<{ ok: true; request: VettedRequest } | OAuthError> {
  const found = await findClient(ctx, params.clientId);
  if (!found.ok) return found;
  return checkAuthorizationRequest(ctx.oauth, found.client, params);
}

/** What the consent page says about a client: who it claims to be, where the answer goes, how it is known. */
export interface ConsentClient {
  id: string;
  name: string;
  kind: OAuthClient["kind"];
  redirectUri: string;
}

export const consentClient = (request: VettedRequest): ConsentClient => ({
  id: request.client.clientId,
  name: request.client.clientName,
  kind: request.client.kind,
  redirectUri: request.redirectUri,
});
