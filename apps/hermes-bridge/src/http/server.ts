import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { SqlKernel } from "@mnote/kernel";
import { startHousekeeping } from "@mnote/tools";
import { TOOL_ERROR_MESSAGES, TOOL_NAMES } from "@mnote/contract";
import {
  type BridgeSettings,
  DEFAULT_HOST,
  DEFAULT_PORT,
  defaultAllowedHosts,
  defaultAllowedOrigins,
  resolveSettings,
} from "../config";
import type { BridgeContext } from "../context";
import { headerValue } from "../headers";
import { type BridgeLogger, createLogger } from "../logging";
import {
  AuthFailureLimiter,
  type Env,
  DEFAULT_HOUSEKEEPING,
  type HousekeepingSettings,
  metricsAnswer,
  observeKernel,
  RateLimiter,
  type SharedWindowCounter,
} from "@mnote/process";
import { clientAddress } from "../auth";
import { sendJson, sendRefusal } from "./body";
import { McpHttpEndpoint, type OriginPolicy } from "./mcp-endpoint";
import { protectedResourceMetadata, protectedResourceMetadataPaths } from "@mnote/oauth";
import { handleToolCall, handleWhoami, toolListing } from "./tool-endpoint";

/** How long an idle keep-alive connection stays open (longer than common load balancers' 60 s idle timeout). */
const KEEP_ALIVE_TIMEOUT_MS = 65_000;

export interface BridgeOptions extends Partial<BridgeSettings> {
  kernel: SqlKernel;
  /** Default 4100; 0 picks a free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  logger?: BridgeLogger;
  /**
   * Variables to read unset settings from (default none: the built-in defaults). `mnote-bridge serve` reads the
   * process's environment once in config.ts and passes the settings themselves; a bridge started in process
   * (tests, benchmarks) never picks up the environment of the process around it by accident.
   */
  env?: Env;
  /**
   * Where failed authentications are counted across instances; default the kernel's fixed-window
   * counter when it has one, so several bridges on one database share the per-address budget.
   */
  failureCounter?: SharedWindowCounter | null;
  /** The sweeps this bridge runs (process/housekeeping.ts); default every 10 minutes; null: none (a test's own). */
  housekeeping?: HousekeepingSettings | null;
}

export interface RunningBridge {
  /** e.g. `http://127.0.0.1:4100` */
  url: string;
  port: number;
  host: string;
  server: HttpServer;
  close(): Promise<void>;
}

const CORS_ALLOW_HEADERS =
  "authorization, content-type, accept, traceparent, mcp-session-id, mcp-protocol-version, last-event-id";

/** CORS stays off unless MNOTE_BRIDGE_CORS_ORIGINS names the origin. */
function applyCors(settings: BridgeSettings, req: IncomingMessage, res: ServerResponse): boolean {
  const origin = headerValue(req.headers.origin);
  if (!origin || !settings.corsOrigins.includes(origin)) return false;
  res.setHeader("access-control-allow-origin", origin);
  res.setHeader("vary", "Origin");
  res.setHeader("access-control-expose-headers", "mcp-session-id, retry-after");
  return true;
}

/** How long `/readyz` waits for the database's `SELECT 1`: a probe must answer quickly, whatever the database does. */
const READINESS_TIMEOUT_MS = 2000;

const UNAVAILABLE = { code: "mnote_tool_unavailable", message: TOOL_ERROR_MESSAGES.unavailable } as const;

/** What a path the bridge does not serve answers (the same words whatever the path: it names nothing). */
const NOT_FOUND = "no such endpoint: the bridge serves /v1/tools, /v1/whoami, /mcp and the health checks";

/**
 * Readiness: the database answers a trivial statement within `READINESS_TIMEOUT_MS`.
 * A timed-out probe is abandoned, not cancelled; it ends with the driver's own timeouts.
 */
async function databaseAnswers(kernel: SqlKernel): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), READINESS_TIMEOUT_MS);
  });
  try {
    return await Promise.race([
      kernel.ping().then(
        () => true,
        () => false,
      ),
      timedOut,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * `/livez`: the process serves HTTP (restart it when this fails). `/readyz`: it can also reach
 * its database (send it traffic only while this is 200). `/healthz` is `/readyz`, so a load
 * balancer's health check stops routing to an instance whose database is gone.
 */
async function handleHealth(kernel: SqlKernel, path: string, res: ServerResponse) {
  if (path === "/livez") return sendJson(res, 200, { ok: true, tools: TOOL_NAMES.length });
  if (await databaseAnswers(kernel)) return sendJson(res, 200, { ok: true, tools: TOOL_NAMES.length });
  sendJson(res, 503, { ok: false, tools: TOOL_NAMES.length, error: UNAVAILABLE }, { "retry-after": "1" });
}

/**
 * The bridge's HTTP server: `/v1` tool endpoint, `/mcp` (Streamable HTTP), `/livez`, `/readyz`
 * and `/healthz`. Listens on 127.0.0.1:4100 unless told otherwise.
 */
export async function startBridge(options: BridgeOptions): Promise<RunningBridge> {
  const {
    kernel,
    port = DEFAULT_PORT,
    host = DEFAULT_HOST,
    logger = createLogger(),
    env,
    failureCounter,
    housekeeping: housekeepingSettings,
    ...overrides
  } = options;
  const settings = resolveSettings(overrides, env ?? {});
  const sharedCounter = failureCounter !== undefined ? failureCounter : kernel.countInWindow.bind(kernel);
  const ctx: BridgeContext = {
    kernel,
    logger,
    settings,
    limiter: settings.rateLimit ? new RateLimiter(settings.rateLimit) : null,
    authFailures: settings.authFailureLimit ? new AuthFailureLimiter(settings.authFailureLimit, sharedCounter) : null,
  };
  let mcp: McpHttpEndpoint | null = null;
  // What /metrics reads of the database when scraped, and the change feed's lag (only with metrics on).
  if (settings.metricsToken) observeKernel(kernel);
  let mcpPolicy: OriginPolicy | null = null;

  const route = async (req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? "/").split("?")[0]!;
    const cors = applyCors(settings, req, res);
    if (req.method === "OPTIONS") {
      if (!cors)
        return sendRefusal(res, 405, "mnote_tool_permission_denied", "CORS is not enabled for this origin", {
          allow: "GET, POST, DELETE",
        });
      res.writeHead(204, {
        "access-control-allow-methods": "GET, POST, DELETE",
        "access-control-allow-headers": CORS_ALLOW_HEADERS,
        "access-control-max-age": "600",
      });
      return res.end();
    }
    if ((path === "/livez" || path === "/readyz" || path === "/healthz") && req.method === "GET")
      return handleHealth(kernel, path, res);
    if (path === "/metrics" && req.method === "GET") {
      // A wrong bearer spends the same per-address failed-authentication budget as the tool and MCP doors.
      const address = clientAddress(req, settings.trustedProxies);
      const answer = await metricsAnswer(settings.metricsToken, req.headers.authorization, () =>
        ctx.authFailures ? ctx.authFailures.failedAttempt(address) : { allowed: true },
      );
      res.writeHead(answer.status, {
        "content-type": answer.contentType,
        "cache-control": "no-store",
        ...answer.headers,
      });
      return res.end(answer.body);
    }
    if (path === "/mcp") return mcp!.handle(req, res);
    if (path.startsWith("/.well-known/oauth-protected-resource") && req.method === "GET") {
      const oauth = mcpPolicy?.oauth;
      if (!oauth || !protectedResourceMetadataPaths(oauth.resource).includes(path))
        return sendRefusal(res, 404, "mnote_tool_not_found", NOT_FOUND);
      return sendJson(res, 200, protectedResourceMetadata(oauth), { "cache-control": "max-age=300" });
    }
    if (path === "/v1/tools" && req.method === "GET") return sendJson(res, 200, toolListing());
    if (path === "/v1/whoami" && req.method === "GET") return handleWhoami(ctx, req, res);
    const call = /^\/v1\/tools\/([^/]+)$/.exec(path);
    if (call) {
      if (req.method !== "POST")
        return sendRefusal(res, 405, "mnote_tool_invalid_input", "use POST", { allow: "POST" });
      let name: string;
      try {
        name = decodeURIComponent(call[1]!);
      } catch {
        name = call[1]!;
      }
      return handleToolCall(ctx, req, res, name);
    }
    sendRefusal(res, 404, "mnote_tool_not_found", NOT_FOUND);
  };

  // A client gets headersTimeoutMs for its headers and requestTimeoutMs for the whole request:
  // a slow-loris body is cut off (408) instead of holding a socket for Node's default 300 s.
  // Responses are not timed: a long tool call still answers.
  const server = createServer(
    {
      headersTimeout: settings.headersTimeoutMs,
      requestTimeout: settings.requestTimeoutMs,
      // Node checks both timeouts on this tick (default 30 s), so a short timeout needs a short tick.
      connectionsCheckingInterval: Math.min(1000, settings.headersTimeoutMs),
    },
    (req, res) => {
      route(req, res).catch((error: unknown) => {
        const path = req.url?.split("?")[0];
        logger.error({ errorType: error instanceof Error ? error.name : typeof error, path }, "request failed");
        // Tool calls turn failures into envelopes in the router; what fails here is the bridge's own
        // database read (a token for /v1/whoami or an MCP session), so the answer is the contract's
        // "unavailable", in the door's own shape: never a bare 500.
        if (res.headersSent) res.destroy();
        else if (path === "/mcp")
          sendJson(res, 503, { jsonrpc: "2.0", error: { code: -32603, message: UNAVAILABLE.message }, id: null });
        else sendRefusal(res, 503, UNAVAILABLE.code, UNAVAILABLE.message);
      });
    },
  );
  // An idle keep-alive socket stays open longer than clients keep theirs (httpx 5 s, undici from this header less
  // 1 s), so a client never sends on a socket the bridge is closing: with Node's 5 s a client whose event loop
  // stalled past the mark (an MCP client compiling its output validators on a busy machine) got ECONNRESET.
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const urlHost = address.family === "IPv6" ? `[${address.address}]` : address.address;
  const url = `http://${urlHost === "0.0.0.0" || urlHost === "[::]" ? "127.0.0.1" : urlHost}:${address.port}`;
  mcpPolicy = {
    allowedHosts: (settings.allowedHosts ?? defaultAllowedHosts(host, address.port)).map((h) => h.toLowerCase()),
    allowedOrigins: settings.allowedOrigins ?? [...defaultAllowedOrigins(host, address.port), ...settings.corsOrigins],
    oauth: settings.oauth
      ? {
          resource: settings.oauth.resource ?? `${url}/mcp`,
          authorizationServer: settings.oauth.authorizationServer,
        }
      : null,
  };
  mcp = new McpHttpEndpoint(ctx, mcpPolicy);
  // Retention, expired records and the audit stream (tools/audit-stream.ts): every bridge runs them at start and on a timer;
  // on PostgreSQL the kernel lets one instance at a time do each.
  const housekeeping =
    housekeepingSettings === null
      ? null
      : startHousekeeping(kernel, logger, housekeepingSettings ?? DEFAULT_HOUSEKEEPING);

  let closing: Promise<void> | null = null;
  return {
    url,
    port: address.port,
    host,
    server,
    close() {
      closing ??= (async () => {
        await housekeeping?.stop();
        await mcp.close();
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        });
      })();
      return closing;
    },
  };
}
