import "server-only";
import { panelEnv } from "./env";
import { getKernel } from "./kernel";
import type { OAuthServerOptions } from "./oauth-endpoints";
import { panelLimiter } from "./rate-limit";

/** The authorization server's options in this process (panelEnv's MNOTE_OAUTH_*). */
export function oauthOptions(): OAuthServerOptions {
  const env = panelEnv();
  return {
    kernel: getKernel,
    toolsSettings: env.tools,
    allowedOrigins: env.allowedOrigins,
    secureCookies: env.secureCookies,
    limiter: panelLimiter(),
  };
}
