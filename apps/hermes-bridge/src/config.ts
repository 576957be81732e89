// This module is where the bridge process reads its environment (the lint rule on `process.env` allows it here and
// nowhere else in the bridge): each command's configuration is read and checked once, before anything opens.
import { LIMITS } from "@mnote/contract";
import { RESULT_FORM_ENV, RESULT_FORMS } from "./hermes/model-text";
import { type ToolsSettings, toolsSettingsFromEnv } from "@mnote/tools";
import {
  type AuthFailureLimitSettings,
  ConfigReader,
  databaseSettingsFromEnv,
  type DatabaseSettings,
  DEFAULT_AUTH_FAILURE_LIMIT,
  DEFAULT_RATE_LIMIT,
  type Env,
  type HousekeepingSettings,
  housekeepingSettingsFromEnv,
  metricsTokenFromEnv,
  type RateLimitSettings,
} from "@mnote/process";

export const DEFAULT_PORT = 4100;
export const DEFAULT_HOST = "127.0.0.1";
/** 4 MiB: a full page save at the contract's limits fits; anything bigger is refused unread. The panel's too. */
export const DEFAULT_BODY_LIMIT = LIMITS.requestBodyBytes;
/** A client has this long to send its request headers. */
export const DEFAULT_HEADERS_TIMEOUT_MS = 10_000;
/** ... and this long for the whole request, body included (a 4 MiB body at a slow 200 KiB/s fits). */
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;
export const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;

export interface BridgeSettings {
  bodyLimit: number;
  /** null: no rate limit. */
  rateLimit: RateLimitSettings | null;
  /** Failed authentications per client address; null: not limited. */
  authFailureLimit: AuthFailureLimitSettings | null;
  /** Peers whose X-Forwarded-For names the client (a load balancer in front of several bridges). */
  trustedProxies: string[];
  /** Host header values accepted on /mcp; null: localhost, 127.0.0.1 and [::1] on the bridge's port. */
  allowedHosts: string[] | null;
  /** Origin header values accepted on /mcp; null: http://localhost|127.0.0.1|[::1] on the bridge's port. */
  allowedOrigins: string[] | null;
  /** Origins that get CORS headers; empty: CORS off. */
  corsOrigins: string[];
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  /** The router's settings (idempotency retention), passed to every call. */
  tools: ToolsSettings;
  /** MNOTE_METRICS_TOKEN: the bearer `GET /metrics` asks for; null: no metrics endpoint (404). */
  metricsToken: string | null;
  /** /mcp as an OAuth 2.1 protected resource (decision 0027); null: bearer tokens only, no metadata. */
  oauth: BridgeOAuthSettings | null;
}

/** MNOTE_BRIDGE_OAUTH_ISSUER and MNOTE_BRIDGE_MCP_URL. */
export interface BridgeOAuthSettings {
  /** The authorization server (the panel's origin) named in the protected-resource metadata. */
  authorizationServer: string;
  /** This bridge's /mcp as clients reach it: the resource tokens are bound to; null: http://<listen address>/mcp. */
  resource: string | null;
}

/** An http(s) URL without query or fragment; http is for a loopback address or a private network behind TLS. */
function httpUrl(config: ConfigReader, name: string, example: string): string | null {
  const value = config.raw(name)?.trim() || undefined;
  if (value === undefined) return null;
  let url: URL | null;
  try {
    url = new URL(value);
  } catch {
    url = null;
  }
  if (!url || (url.protocol !== "https:" && url.protocol !== "http:") || url.search || url.hash || url.username) {
    config.problem(`${name}: ${JSON.stringify(value.slice(0, 100))} is not an http(s) URL like ${example}`);
    return null;
  }
  return url.href;
}

/**
 * The bridge's settings from the environment, every variable checked (see `readBridgeSettings`).
 * Throws one ConfigError naming each bad variable.
 */
export function settingsFromEnv(env: Env = process.env): Partial<BridgeSettings> {
  const config = new ConfigReader(env);
  const settings = readBridgeSettings(config);
  config.done();
  return settings;
}

/**
 * MNOTE_BRIDGE_BODY_LIMIT (bytes), MNOTE_BRIDGE_RATE_LIMIT_RPS and _BURST (RPS 0 turns the limit
 * off), MNOTE_BRIDGE_AUTH_FAILURES per MNOTE_BRIDGE_AUTH_FAILURE_WINDOW_SECONDS (default 30 per 60; 0 failures turns
 * the limit off), MNOTE_BRIDGE_TRUSTED_PROXIES,
 * MNOTE_BRIDGE_ALLOWED_HOSTS, MNOTE_BRIDGE_ALLOWED_ORIGINS, MNOTE_BRIDGE_CORS_ORIGINS (comma-separated),
 * MNOTE_BRIDGE_HEADERS_TIMEOUT_SECONDS, MNOTE_BRIDGE_REQUEST_TIMEOUT_SECONDS, MNOTE_METRICS_TOKEN (the bearer of
 * `GET /metrics`; unset: 404), and the router's MNOTE_IDEMPOTENCY_TTL_HOURS. Problems are added to `config`.
 */
export function readBridgeSettings(config: ConfigReader): Partial<BridgeSettings> {
  const settings: Partial<BridgeSettings> = {};
  const bodyLimit = config.number("MNOTE_BRIDGE_BODY_LIMIT", {
    min: 1024,
    max: 256 * 1024 * 1024,
    integer: true,
    unit: "bytes",
  });
  if (bodyLimit !== undefined) settings.bodyLimit = bodyLimit;
  const rps = config.number("MNOTE_BRIDGE_RATE_LIMIT_RPS", { min: 0, max: 1_000_000 });
  const burst = config.number("MNOTE_BRIDGE_RATE_LIMIT_BURST", { min: 1, max: 1_000_000, integer: true });
  if (rps === 0) settings.rateLimit = null;
  else if (rps !== undefined || burst !== undefined) {
    const ratePerSecond = rps ?? DEFAULT_RATE_LIMIT.ratePerSecond;
    settings.rateLimit = { ratePerSecond, burst: Math.max(1, burst ?? ratePerSecond * 2) };
  }
  const failures = config.number("MNOTE_BRIDGE_AUTH_FAILURES", { min: 0, max: 1_000_000, integer: true });
  const failureWindow = config.number("MNOTE_BRIDGE_AUTH_FAILURE_WINDOW_SECONDS", {
    min: 1,
    max: 86_400,
    integer: true,
    unit: "seconds",
  });
  if (failures === 0) settings.authFailureLimit = null;
  else if (failures !== undefined || failureWindow !== undefined) {
    settings.authFailureLimit = {
      perWindow: failures ?? DEFAULT_AUTH_FAILURE_LIMIT.perWindow,
      windowMs: failureWindow === undefined ? DEFAULT_AUTH_FAILURE_LIMIT.windowMs : failureWindow * 1000,
    };
  }
  const proxies = config.list("MNOTE_BRIDGE_TRUSTED_PROXIES");
  if (proxies) settings.trustedProxies = proxies;
  const hosts = config.list("MNOTE_BRIDGE_ALLOWED_HOSTS");
  if (hosts) settings.allowedHosts = hosts;
  const origins = config.list("MNOTE_BRIDGE_ALLOWED_ORIGINS");
  if (origins) settings.allowedOrigins = origins;
  const cors = config.list("MNOTE_BRIDGE_CORS_ORIGINS");
  if (cors) settings.corsOrigins = cors;
  const headers = config.number("MNOTE_BRIDGE_HEADERS_TIMEOUT_SECONDS", { min: 1, max: 600, unit: "seconds" });
  if (headers !== undefined) settings.headersTimeoutMs = headers * 1000;
  const request = config.number("MNOTE_BRIDGE_REQUEST_TIMEOUT_SECONDS", { min: 1, max: 3600, unit: "seconds" });
  if (request !== undefined) settings.requestTimeoutMs = request * 1000;
  const headersTimeout = settings.headersTimeoutMs ?? DEFAULT_HEADERS_TIMEOUT_MS;
  if ((settings.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS) < headersTimeout) {
    config.problem(
      "MNOTE_BRIDGE_REQUEST_TIMEOUT_SECONDS must not be shorter than MNOTE_BRIDGE_HEADERS_TIMEOUT_SECONDS",
    );
  }
  // Retired with stateful MCP sessions (decision 0014): say so rather than silently ignore them.
  for (const name of ["MNOTE_BRIDGE_SESSION_IDLE_SECONDS", "MNOTE_BRIDGE_MAX_SESSIONS"]) {
    if (config.raw(name) !== undefined) config.problem(`${name} is no longer used: /mcp keeps no sessions (unset it)`);
  }
  settings.tools = toolsSettingsFromEnv(config);
  const metricsToken = metricsTokenFromEnv(config);
  if (metricsToken) settings.metricsToken = metricsToken;
  const issuer = httpUrl(config, "MNOTE_BRIDGE_OAUTH_ISSUER", "https://panel.example.com");
  const resource = httpUrl(config, "MNOTE_BRIDGE_MCP_URL", "https://bridge.example.com/mcp");
  if (resource && !issuer) config.problem("MNOTE_BRIDGE_MCP_URL needs MNOTE_BRIDGE_OAUTH_ISSUER (the panel's URL)");
  // The issuer as the panel's metadata states it: its origin, no trailing slash (RFC 8414 compares it exactly).
  if (issuer) settings.oauth = { authorizationServer: new URL(issuer).origin, resource };
  return settings;
}

export function resolveSettings(options: Partial<BridgeSettings>, env: Env): BridgeSettings {
  const defined = Object.fromEntries(
    Object.entries(options).filter(([, v]) => v !== undefined),
  ) as Partial<BridgeSettings>;
  return {
    bodyLimit: DEFAULT_BODY_LIMIT,
    rateLimit: DEFAULT_RATE_LIMIT,
    authFailureLimit: DEFAULT_AUTH_FAILURE_LIMIT,
    trustedProxies: [],
    allowedHosts: null,
    allowedOrigins: null,
    corsOrigins: [],
    headersTimeoutMs: DEFAULT_HEADERS_TIMEOUT_MS,
    requestTimeoutMs: DEFAULT_REQUEST_TIMEOUT_MS,
    metricsToken: null,
    oauth: null,
    ...settingsFromEnv(env),
    ...defined,
  } as BridgeSettings;
}

/** Everything `mnote-bridge serve` needs, read and checked once before anything opens. */
export interface ServeConfig {
  port: number;
  host: string;
  database: DatabaseSettings;
  logLevel: (typeof LOG_LEVELS)[number];
  settings: Partial<BridgeSettings>;
  /** MNOTE_HOUSEKEEPING_INTERVAL_SECONDS and the retention settings (process/housekeeping.ts). */
  housekeeping: HousekeepingSettings;
}

export function readServeConfig(flags: { port?: string; host?: string }, env: Env = process.env): ServeConfig {
  const config = new ConfigReader({ ...env, MNOTE_BRIDGE_PORT: flags.port ?? env.MNOTE_BRIDGE_PORT });
  const port = config.number("MNOTE_BRIDGE_PORT", {
    min: 0,
    max: 65535,
    integer: true,
    unit: "--port or MNOTE_BRIDGE_PORT",
  });
  const logLevel = config.oneOf("MNOTE_BRIDGE_LOG_LEVEL", LOG_LEVELS);
  const database = databaseSettingsFromEnv(config);
  const settings = readBridgeSettings(config);
  const housekeeping = housekeepingSettingsFromEnv(config);
  config.done();
  return {
    port: port ?? DEFAULT_PORT,
    host: flags.host ?? config.raw("MNOTE_BRIDGE_HOST") ?? DEFAULT_HOST,
    database,
    logLevel: logLevel ?? "info",
    settings,
    housekeeping,
  };
}

/** `mnote-bridge mcp --stdio`: the router's and the rate limit's settings, checked. */
export function readStdioConfig(env: Env = process.env) {
  const config = new ConfigReader(env);
  const database = databaseSettingsFromEnv(config);
  const logLevel = config.oneOf("MNOTE_BRIDGE_LOG_LEVEL", LOG_LEVELS);
  // `hermes` when Hermes Agent spawns the bridge (the printed Hermes config sets it); default standard.
  const resultForm = config.oneOf(RESULT_FORM_ENV, RESULT_FORMS) ?? "standard";
  const settings = readBridgeSettings(config);
  config.done();
  return { database, token: config.raw("MNOTE_TOKEN"), logLevel: logLevel ?? "info", resultForm, settings };
}

/** `mnote-bridge hermes install | config`: where Hermes keeps its files and which database a stdio bridge opens. */
export function readHermesConfig(env: Env = process.env) {
  const config = new ConfigReader(env);
  const database = databaseSettingsFromEnv(config);
  config.done();
  return { hermesHome: config.raw("HERMES_HOME"), databaseUrl: database.url };
}

const LOOPBACK = ["localhost", "127.0.0.1", "[::1]"];
const ANY = new Set(["0.0.0.0", "::", ""]);

function hostPart(host: string) {
  return host.includes(":") && !host.startsWith("[") ? `[${host}]` : host;
}

/** The Host values /mcp accepts: the loopback names on the bridge's port, and the bound address. */
export function defaultAllowedHosts(host: string, port: number): string[] {
  const names = new Set(LOOPBACK);
  if (!ANY.has(host)) names.add(hostPart(host));
  return [...names].map((name) => `${name}:${port}`);
}

export function defaultAllowedOrigins(host: string, port: number): string[] {
  return defaultAllowedHosts(host, port).map((h) => `http://${h}`);
}
