/**
 * The OAuth 2.1 authorization server's protocol (decision 0027): the rules of every request, the documents it
 * publishes, and the reading of clients' metadata documents. No storage and no HTTP server: the router
 * (`@mnote/tools`, `oauth.*`) applies these rules and the kernel alone writes what they decide.
 */
export { oauthError, isOAuthError, quoted, type OAuthError, type OAuthErrorCode } from "./errors";
export {
  OAUTH_DEFAULTS,
  OAUTH_PATHS,
  CODE_TTL_SECONDS,
  CONSENT_TTL_SECONDS,
  type OAuthServerSettings,
} from "./settings";
export type { OAuthClient } from "./client";
export { checkClientMetadata, UNNAMED_CLIENT, type ClientMetadata } from "./client-metadata";
export {
  addressProblem,
  checkDocument,
  clientIdUrlProblem,
  ClientDocuments,
  CLIENT_DOCUMENT_BUDGET_KEY,
  CLIENT_DOCUMENT_DEFAULTS,
  isClientIdUrl,
  type ClientDocumentSource,
  type ClientDocumentsOptions,
} from "./client-document";
export {
  AuthorizationParamsSchema,
  authorizationParams,
  authorizationQuery,
  checkAuthorizationRequest,
  type AuthorizationParams,
  type VettedRequest,
} from "./authorization-request";
export { TokenParamsSchema, tokenParams, type TokenParams } from "./token-request";
export { redirectUriProblem, redirectWith, LOOPBACK_HOSTS } from "./redirect-uri";
export { parseScopes, grantableScopes } from "./scopes";
export { normalizeResource, resourceFor } from "./resource";
export { CODE_VERIFIER, S256_CHALLENGE, s256Challenge, verifierMatches } from "./pkce";
export {
  authorizationServerMetadata,
  protectedResourceMetadata,
  protectedResourceMetadataPaths,
  resourceMetadataUrl,
  type OAuthMetadata,
  type OAuthProtectedResourceMetadata,
  type ProtectedResource,
} from "./metadata";
export { NO_STORE, oauthJson, oauthErrorJson } from "./http";
