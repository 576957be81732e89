import type { ConfigReader } from "@mnote/process";
import { isLoopbackHttp, type OidcSettings } from "./oidc";

const OIDC_VARIABLES = ["MNOTE_OIDC_ISSUER", "MNOTE_OIDC_CLIENT_ID", "MNOTE_OIDC_CLIENT_SECRET"] as const;

/** What the panel's sign-in through an identity provider needs, checked with the rest of the panel's settings. */
export interface OidcConfig extends OidcSettings {
  /**
   * MNOTE_OIDC_REDIRECT_URI: the callback registered at the provider; unset here, the panel fills it from its
   * configured public origin (MNOTE_OAUTH_ISSUER) or refuses to start, never from a request's Host.
   */
  redirectUri: string | null;
}

export const OIDC_CALLBACK_PATH = "/api/auth/oidc/callback";

/**
 * MNOTE_OIDC_ISSUER, MNOTE_OIDC_CLIENT_ID and MNOTE_OIDC_CLIENT_SECRET: all three or none (none: no sign-in
 * through an identity provider). The issuer is an https URL (http only on a loopback address);
 * MNOTE_OIDC_AUTO_PROVISION=1 lets a verified email nobody has in as a new user in no workspace.
 */
export function oidcSettingsFromEnv(config: ConfigReader): OidcConfig | null {
  const values = OIDC_VARIABLES.map((name) => config.raw(name)?.trim() || undefined);
  const autoProvision = config.oneOf("MNOTE_OIDC_AUTO_PROVISION", ["0", "1"]) === "1";
  const redirect = config.raw("MNOTE_OIDC_REDIRECT_URI")?.trim() || undefined;
  if (values.every((value) => value === undefined)) {
    if (autoProvision || redirect)
      config.problem("MNOTE_OIDC_AUTO_PROVISION and MNOTE_OIDC_REDIRECT_URI need MNOTE_OIDC_ISSUER and its client");
    return null;
  }
  const missing = OIDC_VARIABLES.filter((_, i) => values[i] === undefined);
  if (missing.length > 0)
    config.problem(`${missing.join(", ")} not set: set all of ${OIDC_VARIABLES.join(", ")} or none of them`);
  const [issuer, clientId, clientSecret] = values;
  let issuerOk = false;
  if (issuer !== undefined) {
    const url = parseUrl(issuer);
    issuerOk = url !== null && (url.protocol === "https:" || isLoopbackHttp(url)) && !url.search && !url.hash;
    if (!issuerOk)
      config.problem(
        `MNOTE_OIDC_ISSUER: ${JSON.stringify(issuer.slice(0, 100))} is not an https issuer URL like https://login.example.com (http only on 127.0.0.1 or localhost)`,
      );
  }
  let redirectUri: string | null = null;
  if (redirect !== undefined) {
    const url = parseUrl(redirect);
    if (!url || (url.protocol !== "https:" && !isLoopbackHttp(url)) || url.search || url.hash)
      config.problem(
        `MNOTE_OIDC_REDIRECT_URI: ${JSON.stringify(redirect.slice(0, 100))} is not an https URL like https://panel.example.com${OIDC_CALLBACK_PATH}`,
      );
    else redirectUri = url.href;
  }
  if (!issuerOk || !clientId || !clientSecret) return null;
  // The issuer is kept exactly as given: discovery checks it against the provider's own `issuer` (some end in "/").
  return { issuer: issuer!, clientId, clientSecret, autoProvision, redirectUri };
}

function parseUrl(text: string): URL | null {
  try {
    return new URL(text);
  } catch {
    return null;
  }
}
