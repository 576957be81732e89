import "server-only";
import { OidcRelyingParty } from "@mnote/identity";
import { panelEnv } from "./env";

const shared = globalThis as { __mnoteRelyingParty?: OidcRelyingParty };

/** The panel's relying party, one per server process; null when MNOTE_OIDC_* is not set. */
export function relyingParty(): OidcRelyingParty | null {
  const { oidc } = panelEnv();
  if (!oidc) return null;
  shared.__mnoteRelyingParty ??= new OidcRelyingParty(oidc);
  return shared.__mnoteRelyingParty;
}

/**
 * The callback the provider sends the browser back to: configured (MNOTE_OIDC_REDIRECT_URI, or the panel's public
 * origin MNOTE_OAUTH_ISSUER and the callback's path; env.ts refuses to start without either), never taken from the
 * request's Host header.
 */
export function oidcRedirectUri(): string {
  const { oidc } = panelEnv();
  if (!oidc?.redirectUri) throw new Error("sign-in through an identity provider is not configured");
  return oidc.redirectUri;
}
