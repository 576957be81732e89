import { LIMITS, TOOL_ERROR_MESSAGES } from "@mnote/contract";
import type { SqlKernel, TokenRecord } from "@mnote/kernel";
import {
  BodyTooLarge,
  mnoteMetrics,
  type RateDecision,
  readCappedBody,
  recordToolCall,
  retryAfterSeconds,
  toolLabel,
} from "@mnote/process";
import { appRouter, resolveToken, type ToolsSettings } from "@mnote/tools";
import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { PANEL_MAX_BATCH_CALLS } from "../trpc/limits";
import { createPanelContext } from "./context";
import { foreignOrigin } from "./origin";
import { crossOriginRefusal, refuse } from "./refusal";
import { tokenFromCookieHeader } from "./session-cookie";

/**
 * What the panel needs of a rate limiter: one call taken from a key's budget. Kept this
 * small so the bridge's limiter (per process today, shared across instances later) plugs in.
 */
export interface PanelLimiter {
  take(key: string): RateDecision | Promise<RateDecision>;
}

export interface PanelApiOptions {
  kernel: () => Promise<SqlKernel>;
  /** null: no rate limit (tests that send many calls). */
  limiter: PanelLimiter | null;
  /** Bytes; the bridge's limit by default. */
  bodyLimit?: number;
  /** Origins allowed besides the panel's own (MNOTE_PANEL_ORIGINS). */
  allowedOrigins?: readonly string[];
  /** The router's settings from the panel's validated configuration (panelEnv). */
  toolsSettings?: ToolsSettings;
  /** Live-update streams one token may hold open at once in this process (default PANEL_MAX_STREAMS_PER_TOKEN). */
  maxStreamsPerToken?: number;
}

/** Tabs of one person on one panel instance; more is a client that forgot to close its streams. */
export const PANEL_MAX_STREAMS_PER_TOKEN = 16;

/** The procedures answered with a long-lived server-sent event stream (decision 0017). */
const STREAM_PROCEDURES = new Set(["panel.page.changes"]);

/** Open streams per limiter key, for this process. */
const openStreams = new Map<string, number>();

/**
 * The response body, counted as one open stream of `key` until it ends or the client goes away. A stream is
 * one request for the rate limit however many events it carries: it is taken from the budget when it opens
 * (and again on every reconnect), never per event.
 */
function countedStream(response: Response, key: string, ended: AbortController): Response {
  if (!response.body) return response;
  openStreams.set(key, (openStreams.get(key) ?? 0) + 1);
  mnoteMetrics().liveStreams.inc();
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    mnoteMetrics().liveStreams.dec();
    // The subscription waits for the next change; the abort ends it now instead of at that change.
    ended.abort();
    const left = (openStreams.get(key) ?? 1) - 1;
    if (left <= 0) openStreams.delete(key);
    else openStreams.set(key, left);
  };
  const reader = response.body.getReader();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done, value } = await reader.read();
        if (done) {
          release();
          controller.close();
        } else controller.enqueue(value);
      } catch (error) {
        release();
        controller.error(error);
      }
    },
    async cancel(reason) {
      release();
      await reader.cancel(reason).catch(() => undefined);
    },
  });
  return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
}

// A refusal before any procedure runs: the panel's one shape (refusal.ts), re-exported for the Hermes routes.
export { refuse };

/** The body of a fetch `Request` under the cap: the one reader of every door (`@mnote/process`). */
export function readRequestBody(req: Request, limit: number): Promise<Uint8Array<ArrayBuffer>> {
  return readCappedBody(req.body, req.headers.get("content-length"), limit);
}

/** How many procedures one request calls: a batch names them comma-separated in the path. */
function callsIn(url: URL): number {
  const path = url.pathname.slice(url.pathname.lastIndexOf("/") + 1);
  return url.searchParams.get("batch") === "1" ? path.split(",").length : 1;
}

/** What the panel's door found out before any procedure runs. */
export interface OpenedDoor {
  kernel: SqlKernel;
  /** The session cookie as an Authorization value (null: none); the router reads the token from it. */
  authorization: string | null;
  /** The live token, if any. */
  token: TokenRecord | null;
  /** The rate-limit budget this request was taken from. */
  limitKey: string;
  /** The capped body of a POST (empty otherwise). */
  body: Uint8Array<ArrayBuffer>;
}

export interface DoorOptions {
  kernel: () => Promise<SqlKernel>;
  limiter: PanelLimiter | null;
  allowedOrigins?: readonly string[];
  bodyLimit?: number;
  /** How many calls this request makes of the budget (a tRPC batch: one per procedure). */
  calls?: number;
  /** A refusal after the token is known and before the budget is taken (e.g. too many open streams). */
  beforeLimit?: (limitKey: string) => Response | null;
}

/** The budget every request shares whose session cookie resolves to no live token. */
export const FAILED_AUTHENTICATION_KEY = "failed-authentication";

/** What a 429 says: a token's own budget, the failed authentications', or the calls without a session. */
function refusalMessage(limitKey: string): string {
  if (limitKey === FAILED_AUTHENTICATION_KEY) return "too many failed authentications; sign in again or retry later";
  if (limitKey === "anonymous") return "too many calls without a session; retry later";
  return TOOL_ERROR_MESSAGES.rateLimited;
}

/**
 * The one door of every panel route (`/api/trpc`, `/api/hermes/*`): a cross-site change is refused (Origin),
 * the token is read as the router reads it (`resolveToken`), the per-token rate limit is taken (requests
 * whose cookie resolves to no live token share one budget, the failed authentications': a made-up cookie per
 * request must not buy a fresh bucket each time; a live token's budget is its own whatever others fail), and
 * a POST's body is read with the bridge's cap.
 */
export async function openPanelDoor(req: Request, options: DoorOptions): Promise<OpenedDoor | Response> {
  if (req.method !== "GET" && req.method !== "HEAD" && foreignOrigin(req, options.allowedOrigins ?? [])) {
    return crossOriginRefusal();
  }
  const authorization = tokenFromCookieHeader(req.headers.get("cookie"));
  let kernel: SqlKernel;
  let token: TokenRecord | null;
  try {
    kernel = await options.kernel();
    token = await resolveToken(kernel, authorization);
  } catch (error) {
    // The database cannot be opened or does not answer (getKernel tries again next time): 503, never a 500
    // quoting the driver.
    console.error("[panel] the database is unavailable", error);
    return refuse(503, "mnote_tool_unavailable", TOOL_ERROR_MESSAGES.unavailable, { "retry-after": "1" });
  }
  // Three budgets: a live token's own; a cookie that resolves to no live token (a failing attempt: made-up
  // cookies share this one, so rotating them buys nothing); no cookie at all. A valid token is never refused
  // for the failures of others (issue 20), and a flood of bad cookies does not starve the cookie-less calls.
  const limitKey = token ? `token:${token.id}` : authorization ? FAILED_AUTHENTICATION_KEY : "anonymous";
  const early = options.beforeLimit?.(limitKey);
  if (early) return early;
  if (options.limiter) {
    for (let i = 0; i < (options.calls ?? 1); i++) {
      const decision = await options.limiter.take(limitKey);
      if (!decision.allowed) {
        return refuse(429, "mnote_tool_rate_limited", refusalMessage(limitKey), {
          "retry-after": retryAfterSeconds(decision.retryAfterMs),
        });
      }
    }
  }
  let body = new Uint8Array(new ArrayBuffer(0));
  if (req.method === "POST") {
    try {
      body = await readRequestBody(req, options.bodyLimit ?? LIMITS.requestBodyBytes);
    } catch (error) {
      if (error instanceof BodyTooLarge) {
        return refuse(413, "mnote_tool_payload_too_large", TOOL_ERROR_MESSAGES.payloadTooLarge, {
          connection: "close",
        });
      }
      return refuse(400, "mnote_tool_invalid_input", "the request body could not be read");
    }
  }
  return { kernel, authorization, token, limitKey, body };
}

/**
 * `/api/trpc`: the whole router behind the panel's door (`openPanelDoor`). tRPC refuses a batch over
 * PANEL_MAX_BATCH_CALLS. Every call carries `door: "panel"`, so only person tokens pass (agent tokens get
 * the contract's refusal, `mnote.*` included).
 */
export async function handlePanelApi(req: Request, options: PanelApiOptions): Promise<Response> {
  const startedAt = performance.now();
  const response = await answerPanelApi(req, options);
  // The panel's door in the metrics: one procedure by its name (a made-up path is `unknown`), a batch as `batch`.
  const path = new URL(req.url).pathname;
  const names = path.slice(path.lastIndexOf("/") + 1).split(",");
  const tool = names.length === 1 ? toolLabel(names[0]!, PROCEDURES) : "batch";
  recordToolCall(tool, "panel", response.ok ? "ok" : `http_${response.status}`, (performance.now() - startedAt) / 1000);
  return response;
}

/** Every procedure path of the router (`panel.page.view`, `mnote.page.get`, …): the metrics' bounded label set. */
const PROCEDURES: ReadonlySet<string> = new Set(Object.keys(appRouter._def.procedures));

async function answerPanelApi(req: Request, options: PanelApiOptions): Promise<Response> {
  const url = new URL(req.url);
  const stream = req.method === "GET" && STREAM_PROCEDURES.has(url.pathname.slice(url.pathname.lastIndexOf("/") + 1));
  const maxStreams = options.maxStreamsPerToken ?? PANEL_MAX_STREAMS_PER_TOKEN;
  const door = await openPanelDoor(req, {
    kernel: options.kernel,
    limiter: options.limiter,
    allowedOrigins: options.allowedOrigins,
    bodyLimit: options.bodyLimit,
    calls: Math.min(callsIn(url), PANEL_MAX_BATCH_CALLS + 1),
    beforeLimit: (key) =>
      stream && (openStreams.get(key) ?? 0) >= maxStreams
        ? refuse(
            429,
            "mnote_tool_rate_limited",
            "too many live-update streams open for this session; close other tabs",
            {
              "retry-after": "5",
            },
          )
        : null,
  });
  if (door instanceof Response) return door;
  const { kernel, authorization: token, limitKey: key } = door;
  let request = req;
  // A stream's subscription stops when its client goes away (the request's signal) or its body is cancelled.
  const streamEnded = new AbortController();
  if (stream) request = new Request(req, { signal: AbortSignal.any([req.signal, streamEnded.signal]) });
  if (req.method === "POST")
    request = new Request(req.url, { method: req.method, headers: req.headers, body: door.body });
  const response = await fetchRequestHandler({
    endpoint: "/api/trpc",
    req: request,
    router: appRouter,
    maxBatchSize: PANEL_MAX_BATCH_CALLS,
    createContext: async () => createPanelContext({ kernel, authorization: token, settings: options.toolsSettings }),
    onError: ({ error, path }) => {
      if (error.code === "INTERNAL_SERVER_ERROR") console.error(`[panel] ${path} failed`, error.cause ?? error);
    },
  });
  return stream && response.headers.get("content-type")?.startsWith("text/event-stream")
    ? countedStream(response, key, streamEnded)
    : response;
}
