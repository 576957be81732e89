import "server-only";
import { OIDC_CALLBACK_PATH, OidcRelyingParty } from "@mnote/identity";
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
 * The callback the provider sends the browser back to: MNOTE_OIDC_REDIRECT_URI, else the origin the browser
 * used (its Host; https when the cookies are Secure) and the callback's path. A made-up Host gets a redirect
 * URI the provider has not registered, so it refuses to send a code there.
 */
export function redirectUriFor(req: Request): string {
  const { oidc, secureCookies } = panelEnv();
  if (oidc?.redirectUri) return oidc.redirectUri;
  const host = req.headers.get("host") ?? new URL(req.url).host;
  return `${secureCookies ? "https" : "http"}://${host}${OIDC_CALLBACK_PATH}`;
}
