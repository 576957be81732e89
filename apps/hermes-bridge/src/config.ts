import { LIMITS } from "@mnote/contract";
import { DEFAULT_RATE_LIMIT, type RateLimitSettings } from "./rate-limit";

export const DEFAULT_PORT = 4100;
export const DEFAULT_HOST = "127.0.0.1";
/** 4 MiB: a full page save at the contract's limits fits; anything bigger is refused unread. The panel's too. */
export const DEFAULT_BODY_LIMIT = LIMITS.requestBodyBytes;
export const DEFAULT_SESSION_IDLE_MS = 30 * 60 * 1000;
export const DEFAULT_MAX_SESSIONS = 1000;

export interface BridgeSettings {
  bodyLimit: number;
  /** null: no rate limit. */
  rateLimit: RateLimitSettings | null;
  /** Host header values accepted on /mcp; null: localhost, 127.0.0.1 and [::1] on the bridge's port. */
  allowedHosts: string[] | null;
  /** Origin header values accepted on /mcp; null: http://localhost|127.0.0.1|[::1] on the bridge's port. */
  allowedOrigins: string[] | null;
  /** Origins that get CORS headers; empty: CORS off. */
  corsOrigins: string[];
  sessionIdleMs: number;
  maxSessions: number;
}

const list = (value: string | undefined) =>
  value
    ?.split(",")
    .map((item) => item.trim())
    .filter(Boolean);

function positive(name: string, value: string | undefined): number | undefined {
  if (value === undefined || value.trim() === "") return undefined;
  const number = Number(value);
  if (!Number.isFinite(number) || number < 0) throw new Error(`${name} must be a non-negative number (got ${value})`);
  return number;
}

/**
 * The bridge's settings from the environment. Explicit options to `startBridge` win
 * over these, and these over the defaults.
 *
 * MNOTE_BRIDGE_BODY_LIMIT (bytes), MNOTE_BRIDGE_RATE_LIMIT_RPS and _BURST (RPS 0 turns the limit
 * off), MNOTE_BRIDGE_ALLOWED_HOSTS, MNOTE_BRIDGE_ALLOWED_ORIGINS, MNOTE_BRIDGE_CORS_ORIGINS
 * (comma-separated), MNOTE_BRIDGE_SESSION_IDLE_SECONDS, MNOTE_BRIDGE_MAX_SESSIONS.
 */
export function settingsFromEnv(env: NodeJS.ProcessEnv = process.env): Partial<BridgeSettings> {
  const settings: Partial<BridgeSettings> = {};
  const bodyLimit = positive("MNOTE_BRIDGE_BODY_LIMIT", env.MNOTE_BRIDGE_BODY_LIMIT);
  if (bodyLimit !== undefined) settings.bodyLimit = bodyLimit;
  const rps = positive("MNOTE_BRIDGE_RATE_LIMIT_RPS", env.MNOTE_BRIDGE_RATE_LIMIT_RPS);
  const burst = positive("MNOTE_BRIDGE_RATE_LIMIT_BURST", env.MNOTE_BRIDGE_RATE_LIMIT_BURST);
  if (rps === 0) settings.rateLimit = null;
  else if (rps !== undefined || burst !== undefined) {
    const ratePerSecond = rps ?? DEFAULT_RATE_LIMIT.ratePerSecond;
    settings.rateLimit = { ratePerSecond, burst: Math.max(1, burst ?? ratePerSecond * 2) };
  }
  const hosts = list(env.MNOTE_BRIDGE_ALLOWED_HOSTS);
  if (hosts?.length) settings.allowedHosts = hosts;
  const origins = list(env.MNOTE_BRIDGE_ALLOWED_ORIGINS);
  if (origins?.length) settings.allowedOrigins = origins;
  const cors = list(env.MNOTE_BRIDGE_CORS_ORIGINS);
  if (cors?.length) settings.corsOrigins = cors;
  const idle = positive("MNOTE_BRIDGE_SESSION_IDLE_SECONDS", env.MNOTE_BRIDGE_SESSION_IDLE_SECONDS);
  if (idle) settings.sessionIdleMs = idle * 1000;
  const maxSessions = positive("MNOTE_BRIDGE_MAX_SESSIONS", env.MNOTE_BRIDGE_MAX_SESSIONS);
  if (maxSessions) settings.maxSessions = maxSessions;
  return settings;
}

export function resolveSettings(options: Partial<BridgeSettings>, env: NodeJS.ProcessEnv = process.env): BridgeSettings {
  const defined = Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)) as Partial<BridgeSettings>;
  return {
    bodyLimit: DEFAULT_BODY_LIMIT,
    rateLimit: DEFAULT_RATE_LIMIT,
    allowedHosts: null,
    allowedOrigins: null,
    corsOrigins: [],
    sessionIdleMs: DEFAULT_SESSION_IDLE_MS,
    maxSessions: DEFAULT_MAX_SESSIONS,
    ...settingsFromEnv(env),
    ...defined,
  };
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
