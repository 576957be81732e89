import { describeIssues, unstorableText } from "@mnote/contract";
import { OAuthClientMetadataSchema } from "@modelcontextprotocol/core";
import { oauthError, type OAuthError } from "./errors";
import { redirectUriProblem } from "./redirect-uri";
import { parseScopes } from "./scopes";

/** What mnote keeps of a client's metadata, registered (RFC 7591) or read from its metadata document. */
export interface ClientMetadata {
  clientName: string;
  redirectUris: string[];
  grantTypes: string[];
  /** The scopes it registered (space-separated capabilities), or null: it asks per request. */
  scope: string | null;
}

/** A name for the consent page and the agent token's label; a client that gave none is called this. */
export const UNNAMED_CLIENT = "unnamed MCP client";
const MAX_REDIRECT_URIS = 10;
const MAX_NAME = 100;

/**
 * The one rule for a client's metadata, whichever way it arrives: the MCP SDK's schema of RFC 7591 metadata, then
 * mnote's: a public client (`token_endpoint_auth_method` none, PKCE is its proof), the code flow and refresh only,
 * 1 to 10 redirect URIs that are https or loopback http, scopes that are mnote capabilities, a storable name.
 */
export function checkClientMetadata(document: unknown): { ok: true; metadata: ClientMetadata } | OAuthError {
  const parsed = OAuthClientMetadataSchema.safeParse(document);
  if (!parsed.success)
    return oauthError("invalid_client_metadata", describeIssues(parsed.error, { root: "document", max: 5 }));
  const metadata = parsed.data;
  const redirectUris = metadata.redirect_uris.map(String);
  if (redirectUris.length === 0 || redirectUris.length > MAX_REDIRECT_URIS)
    return oauthError("invalid_redirect_uri", `a client names 1 to ${MAX_REDIRECT_URIS} redirect URIs`);
  for (const uri of redirectUris) {
    const problem = redirectUriProblem(uri);
    if (problem) return oauthError("invalid_redirect_uri", problem);
  }
  if ((metadata.token_endpoint_auth_method ?? "none") !== "none")
    return oauthError("invalid_client_metadata", "only public clients (token_endpoint_auth_method none) are served");
  const grantTypes = metadata.grant_types ?? ["authorization_code", "refresh_token"];
  if (!grantTypes.every((grant) => grant === "authorization_code" || grant === "refresh_token"))
    return oauthError("invalid_client_metadata", "grant types are authorization_code and refresh_token");
  if (!(metadata.response_types ?? ["code"]).every((type) => type === "code"))
    return oauthError("invalid_client_metadata", "the only response type is code");
  const scopes = parseScopes(metadata.scope);
  if (!scopes) return oauthError("invalid_client_metadata", "scope names mnote capabilities only");
  const name = (metadata.client_name ?? "").trim();
  if (name.length > MAX_NAME)
    return oauthError("invalid_client_metadata", `client_name is at most ${MAX_NAME} characters`);
  const unstorable = unstorableText(name);
  if (unstorable) return oauthError("invalid_client_metadata", `client_name: ${unstorable}`);
  return {
    ok: true,
    metadata: {
      clientName: name || UNNAMED_CLIENT,
      redirectUris,
      grantTypes,
      scope: scopes.length ? scopes.join(" ") : null,
    },
  };
}
