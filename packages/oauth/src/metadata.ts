import { CAPABILITIES } from "@mnote/contract";
import type { OAuthMetadataSchema, OAuthProtectedResourceMetadataSchema } from "@modelcontextprotocol/core";
import type { z } from "zod";
import { OAUTH_PATHS, type OAuthServerSettings } from "./settings";

/** The MCP SDK's own types of both documents (a client reads them with these schemas). */
export type OAuthMetadata = z.infer<typeof OAuthMetadataSchema>;
export type OAuthProtectedResourceMetadata = z.infer<typeof OAuthProtectedResourceMetadataSchema>;

/**
 * RFC 8414 metadata of the panel's authorization server: the code flow with PKCE S256 only, public clients,
 * registration (RFC 7591) for older clients, client ID metadata documents when the panel reads them, and `iss` in every
 * authorization response (RFC 9207).
 */
export function authorizationServerMetadata(settings: OAuthServerSettings): OAuthMetadata {
  const at = (path: string) => `${settings.issuer}${path}`;
  return {
    issuer: settings.issuer,
    authorization_endpoint: at(OAUTH_PATHS.authorize),
    token_endpoint: at(OAUTH_PATHS.token),
    registration_endpoint: at(OAUTH_PATHS.register),
    response_types_supported: ["code"],
    grant_types_supported: ["authorization_code", "refresh_token"],
    code_challenge_methods_supported: ["S256"],
    token_endpoint_auth_methods_supported: ["none"],
    scopes_supported: [...CAPABILITIES],
    authorization_response_iss_parameter_supported: true,
    ...(settings.clientDocuments ? { client_id_metadata_document_supported: true } : {}),
  };
}

/** What a protected resource's metadata says (RFC 9728): the bridge's /mcp and the panel that issues its tokens. */
export interface ProtectedResource {
  /** This endpoint's URL as clients reach it: the resource OAuth tokens are bound to (RFC 8707). */
  resource: string;
  /** The panel's origin, the authorization server's issuer. */
  authorizationServer: string;
}

/** The two places the metadata is served: the root (named in the challenge) and RFC 9728's path-aware one. */
export function protectedResourceMetadataPaths(resource: string): string[] {
  const path = new URL(resource).pathname.replace(/\/+$/, "");
  return ["/.well-known/oauth-protected-resource", ...(path ? [`/.well-known/oauth-protected-resource${path}`] : [])];
}

/** RFC 9728 protected-resource metadata of the bridge's /mcp. */
export function protectedResourceMetadata(protectedResource: ProtectedResource): OAuthProtectedResourceMetadata {
  return {
    resource: protectedResource.resource,
    authorization_servers: [protectedResource.authorizationServer],
    scopes_supported: [...CAPABILITIES],
    bearer_methods_supported: ["header"],
    resource_name: "mnote",
  };
}

/** Where a client finds the metadata: the origin of the resource (what the bridge is reached at) and the root path. */
export function resourceMetadataUrl(protectedResource: ProtectedResource): string {
  return `${new URL(protectedResource.resource).origin}/.well-known/oauth-protected-resource`;
}
