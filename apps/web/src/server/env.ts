import { resolve } from "node:path";
import { DEFAULT_ALLOWED_TOOLSETS } from "@mnote/hermes-runs";
import { OIDC_CALLBACK_PATH, type OidcConfig, oidcSettingsFromEnv } from "@mnote/identity";
import { ASK_RUN_LINES_GRACE_MS, defaultDatabaseUrl } from "@mnote/kernel";
import { ClientDocuments, OAUTH_DEFAULTS, type OAuthServerSettings } from "@mnote/oauth";
import { type ToolsSettings, toolsSettingsFromEnv } from "@mnote/tools";
import {
  ConfigReader,
  databaseSettingsFromEnv,
  type DatabaseSettings,
  type HousekeepingSettings,
  housekeepingSettingsFromEnv,
  metricsTokenFromEnv,
  RateLimiter,
} from "@mnote/process";

/** The panel's whole configuration, read from the environment once and checked as one. */
export interface PanelEnv {
  /** MNOTE_DATABASE_URL (+ MNOTE_PG_*); `npm start` passes an absolute URL, the fallback is the repository's default database. */
  database: DatabaseSettings;
  /** MNOTE_SECURE_COOKIES=1 (0 or unset: off): required whenever the panel is served over HTTPS. */
  secureCookies: boolean;
  /** MNOTE_PANEL_ORIGINS: comma-separated origins allowed to send changes besides the panel's own. */
  allowedOrigins: string[];
  /** MNOTE_DEV_SIGNIN_USERS: the demo users the sign-in picker may sign in; empty means no picker. */
  devSignInUsers: string[];
  /** MNOTE_IDEMPOTENCY_TTL_HOURS, the same rule as on the bridge and the CLI; MNOTE_OAUTH_* (its `oauth`). */
  tools: ToolsSettings;
  /** MNOTE_HERMES_URL + MNOTE_HERMES_API_KEY: Hermes's API server for "Ask Hermes"; null when not connected. */
  hermes: HermesConnection | null;
  /** MNOTE_OIDC_*: sign-in through the team's identity provider; null when not configured. */
  oidc: OidcConfig | null;
  /** MNOTE_METRICS_TOKEN: the bearer `GET /api/metrics` asks for; null: no metrics endpoint (404). */
  metricsToken: string | null;
  /** MNOTE_HOUSEKEEPING_INTERVAL_SECONDS and the retention settings: the sweeps the panel's server runs too. */
  housekeeping: HousekeepingSettings;
  /**
   * MNOTE_ASK_LINES_GRACE_SECONDS (0–600, default 60): how long an ended run's lines stay for readers still on
   * it before the run sweep removes them (decision 0031, docs/security.md "What a run leaves").
   */
  askLinesGraceMs: number;
}

/** Where the panel's server reaches Hermes's API server, and the key it sends there (never to the browser). */
export interface HermesConnection {
  /** Without a trailing slash, e.g. http://127.0.0.1:8642 */
  url: string;
  /** Hermes's API_SERVER_KEY. */
  apiKey: string;
  /**
   * MNOTE_HERMES_ALLOWED_TOOLSETS (comma-separated, default `mnote`): the only toolsets Hermes may offer a
   * run asked from the panel; Ask Hermes is off while its API server offers any other (decision 0021).
   */
  allowedToolsets: string[];
}

/** Hermes itself refuses an API_SERVER_KEY shorter than this. */
export const HERMES_KEY_MIN_LENGTH = 16;

/** Both variables or neither: half a connection is a mistake to report at start, not a box that fails later. */
function readHermes(config: ConfigReader): HermesConnection | null {
  const url = config.raw("MNOTE_HERMES_URL")?.trim() || undefined;
  const apiKey = config.raw("MNOTE_HERMES_API_KEY")?.trim() || undefined;
  if (!url && !apiKey) return null;
  if (!url)
    config.problem(
      "MNOTE_HERMES_API_KEY is set but MNOTE_HERMES_URL is not: set both (Hermes's API server URL and its API_SERVER_KEY) or neither",
    );
  if (!apiKey)
    config.problem(
      "MNOTE_HERMES_URL is set but MNOTE_HERMES_API_KEY is not: set both (Hermes's API server URL and its API_SERVER_KEY) or neither",
    );
  let parsed: URL | null = null;
  if (url) {
    try {
      parsed = new URL(url);
    } catch {
      parsed = null;
    }
    if (
      !parsed ||
      (parsed.protocol !== "http:" && parsed.protocol !== "https:") ||
      parsed.search ||
      parsed.hash ||
      parsed.username ||
      parsed.password
    ) {
      config.problem(
        `MNOTE_HERMES_URL: ${JSON.stringify(url.slice(0, 100))} is not an http(s) URL like http://127.0.0.1:8642`,
      );
      parsed = null;
    }
  }
  if (apiKey && apiKey.length < HERMES_KEY_MIN_LENGTH) {
    config.problem(
      `MNOTE_HERMES_API_KEY is ${apiKey.length} characters; Hermes's API_SERVER_KEY has at least ${HERMES_KEY_MIN_LENGTH}`,
    );
  }
  const allowedToolsets = list(config.raw("MNOTE_HERMES_ALLOWED_TOOLSETS"));
  for (const name of allowedToolsets) {
    if (!/^[\w.-]{1,64}$/.test(name))
      config.problem(
        `MNOTE_HERMES_ALLOWED_TOOLSETS: ${JSON.stringify(name.slice(0, 100))} is not a Hermes toolset name`,
      );
  }
  if (!parsed || !apiKey) return null;
  return {
    url: parsed.href.replace(/\/+$/, ""),
    apiKey,
    allowedToolsets: allowedToolsets.length ? allowedToolsets : [...DEFAULT_ALLOWED_TOOLSETS],
  };
}

/**
 * Network fetches of client metadata documents this panel makes, whatever clients present (cached documents cost
 * none): enough for people connecting agents, not enough to make the panel a scanner.
 */
const CLIENT_DOCUMENT_FETCHES = { ratePerSecond: 1, burst: 20 };

/**
 * MNOTE_OAUTH_ISSUER (the panel's public origin) and MNOTE_OAUTH_RESOURCES (comma-separated: the bridges' /mcp URLs,
 * each bridge's MNOTE_BRIDGE_MCP_URL): both, and the panel is the OAuth authorization server of those bridges
 * (decision 0027); neither, and it is not. MNOTE_OAUTH_CLIENT_DOCUMENTS: `on` (the default) reads clients' metadata
 * documents from public https addresses, `off` takes registered clients only, `loopback` (development only) also
 * reads them from this machine, over http too.
 */
function readOAuth(config: ConfigReader): OAuthServerSettings | null {
  const issuer = config.raw("MNOTE_OAUTH_ISSUER")?.trim() || undefined;
  const resources = list(config.raw("MNOTE_OAUTH_RESOURCES"));
  const documents = config.oneOf("MNOTE_OAUTH_CLIENT_DOCUMENTS", ["on", "off", "loopback"]) ?? "on";
  if (!issuer && resources.length === 0) return null;
  if (!issuer || resources.length === 0) {
    config.problem(
      "set both MNOTE_OAUTH_ISSUER (the panel's URL) and MNOTE_OAUTH_RESOURCES (the bridges' /mcp URLs), or neither",
    );
    return null;
  }
  const good = (text: string) => {
    try {
      const url = new URL(text);
      return (url.protocol === "https:" || url.protocol === "http:") && !url.search && !url.hash && !url.username;
    } catch {
      return false;
    }
  };
  let ok = true;
  if (!good(issuer) || new URL(issuer).pathname !== "/") {
    config.problem(
      `MNOTE_OAUTH_ISSUER: ${JSON.stringify(issuer.slice(0, 100))} is not an origin like https://panel.example.com`,
    );
    ok = false;
  }
  for (const resource of resources) {
    if (!good(resource)) {
      config.problem(
        `MNOTE_OAUTH_RESOURCES: ${JSON.stringify(resource.slice(0, 100))} is not a URL like https://bridge.example.com/mcp`,
      );
      ok = false;
    }
  }
  if (!ok) return null;
  return {
    issuer: new URL(issuer).origin,
    resources: resources.map((resource) => new URL(resource).href),
    ...OAUTH_DEFAULTS,
    clientDocuments:
      documents === "off"
        ? null
        : new ClientDocuments({
            allowLoopback: documents === "loopback",
            limiter: new RateLimiter(CLIENT_DOCUMENT_FETCHES),
          }),
  };
}

const list = (value: string | undefined, clean: (item: string) => string = (item) => item) =>
  (value ?? "")
    .split(",")
    .map((item) => clean(item.trim()))
    .filter(Boolean);

/**
 * Where the identity provider sends the browser back: MNOTE_OIDC_REDIRECT_URI, else the panel's configured public
 * origin (MNOTE_OAUTH_ISSUER) and the callback's path. Never the origin a request claims in its Host header (issue
 * 31: a forged Host made the panel ask for a code at http://evil.example/…): with neither set, the panel does not start.
 */
function withRedirectUri(
  oidc: OidcConfig | null,
  oauth: OAuthServerSettings | null,
  config: ConfigReader,
): OidcConfig | null {
  if (!oidc || oidc.redirectUri) return oidc;
  if (oauth) return { ...oidc, redirectUri: `${oauth.issuer}${OIDC_CALLBACK_PATH}` };
  config.problem(
    `MNOTE_OIDC_REDIRECT_URI not set: set it to the callback registered at the provider, like https://panel.example.com${OIDC_CALLBACK_PATH} (the panel never builds it from a request's Host)`,
  );
  return null;
}

/** Throws a ConfigError naming every bad variable (instrumentation.ts turns it into a refusal to start). */
export function readPanelEnv(env: Record<string, string | undefined>): PanelEnv {
  const config = new ConfigReader(env);
  const secure = config.oneOf("MNOTE_SECURE_COOKIES", ["0", "1"]);
  const tools: ToolsSettings = { ...toolsSettingsFromEnv(config), oauth: readOAuth(config) };
  const hermes = readHermes(config);
  const oidc = withRedirectUri(oidcSettingsFromEnv(config), tools.oauth ?? null, config);
  const metricsToken = metricsTokenFromEnv(config);
  const housekeeping = housekeepingSettingsFromEnv(config);
  const graceSeconds = config.number("MNOTE_ASK_LINES_GRACE_SECONDS", {
    min: 0,
    max: 600,
    integer: true,
    unit: "seconds",
  });
  const database = databaseSettingsFromEnv(config, defaultDatabaseUrl(resolve(process.cwd(), "../..")));
  const allowedOrigins = list(config.raw("MNOTE_PANEL_ORIGINS"), (origin) => origin.replace(/\/+$/, ""));
  for (const origin of allowedOrigins) {
    if (!/^https?:\/\/[^/\s]+$/.test(origin))
      config.problem(
        `MNOTE_PANEL_ORIGINS: ${JSON.stringify(origin.slice(0, 100))} is not an origin like https://panel.example.com`,
      );
  }
  config.done();
  return {
    database,
    secureCookies: secure === "1",
    allowedOrigins,
    devSignInUsers: list(config.raw("MNOTE_DEV_SIGNIN_USERS")),
    tools,
    hermes,
    oidc,
    metricsToken,
    housekeeping,
    askLinesGraceMs: (graceSeconds ?? ASK_RUN_LINES_GRACE_MS / 1000) * 1000,
  };
}

const shared = globalThis as { __mnotePanelEnv?: PanelEnv };

/** This process's configuration (checked at start by instrumentation.ts; every reader goes through here). */
export function panelEnv(): PanelEnv {
  shared.__mnotePanelEnv ??= readPanelEnv(process.env);
  return shared.__mnotePanelEnv;
}
