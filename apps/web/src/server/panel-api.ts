import { LIMITS, TOOL_ERROR_MESSAGES } from "@mnote/contract";
import type { PanelHermes } from "@mnote/hermes-runs";
import type { SqlKernel, TokenRecord } from "@mnote/kernel";
import {
  BodyTooLarge,
  mnoteMetrics,
  type RateDecision,
  readCappedBody,
  recordToolCall,
  retryAfterSeconds,
} from "@mnote/process";
import { appRouter, resolveToken, type ToolsSettings } from "@mnote/tools";
import { TRPCError } from "@trpc/server";
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
  /** The panel's Hermes, for Ask Hermes (`panel.hermes.*`); none: those procedures refuse. */
  hermes?: PanelHermes | null;
}

/** Tabs of one person on one panel instance; more is a client that forgot to close its streams. */
export const PANEL_MAX_STREAMS_PER_TOKEN = 16;

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

// A refusal before any procedure runs: the panel's one shape (refusal.ts), re-exported for the Hermes adapters.
export { refuse };

/** The body of a fetch `Request` under the cap: the one reader of every door (`@mnote/process`). */
export function readRequestBody(req: Request, limit: number): Promise<Uint8Array<ArrayBuffer>> {
  return readCappedBody(req.body, req.headers.get("content-length"), limit);
}

/** Who is at the door, found out before any procedure runs. */
interface Admitted {
  kernel: SqlKernel;
  /** The session cookie as an Authorization value (null: none); the router reads the token from it. */
  authorization: string | null;
  /** The live token, if any. */
  token: TokenRecord | null;
  /** The rate-limit budget this request takes from. */
  limitKey: string;
}

/** What the panel's door found out before any procedure runs, and the body it read. */
export interface OpenedDoor extends Admitted {
  /** The capped body of a POST (empty otherwise). */
  body: Uint8Array<ArrayBuffer>;
}

export interface DoorOptions {
  kernel: () => Promise<SqlKernel>;
  limiter: PanelLimiter | null;
  allowedOrigins?: readonly string[];
  bodyLimit?: number;
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
 * The door's first steps: a cross-site change is refused (Origin), the token is read as the router reads it
 * (`resolveToken`), and the request's budget is named. Requests whose cookie resolves to no live token share one
 * budget, the failed authentications': a made-up cookie per request must not buy a fresh bucket each time; a live
 * token's budget is its own whatever others fail (issue 20); a flood of bad cookies does not starve the cookie-less.
 */
async function admit(req: Request, options: DoorOptions): Promise<Admitted | Response> {
  if (req.method !== "GET" && req.method !== "HEAD" && foreignOrigin(req, options.allowedOrigins ?? [])) {
    return crossOriginRefusal();
  }
  const authorization = tokenFromCookieHeader(req.headers.get("cookie"));
  try {
    const kernel = await options.kernel();
    const token = await resolveToken(kernel, authorization);
    const limitKey = token ? `token:${token.id}` : authorization ? FAILED_AUTHENTICATION_KEY : "anonymous";
    return { kernel, authorization, token, limitKey };
  } catch (error) {
    // The database cannot be opened or does not answer (getKernel tries again next time): 503, never a 500
    // quoting the driver.
    console.error("[panel] the database is unavailable", error);
    return refuse(503, "mnote_tool_unavailable", TOOL_ERROR_MESSAGES.unavailable, { "retry-after": "1" });
  }
}

/** `calls` calls taken from `limitKey`'s budget; a 429 when it is spent. */
async function takeBudget(limiter: PanelLimiter | null, limitKey: string, calls: number): Promise<Response | null> {
  if (!limiter) return null;
  for (let i = 0; i < calls; i++) {
    const decision = await limiter.take(limitKey);
    if (!decision.allowed) {
      return refuse(429, "mnote_tool_rate_limited", refusalMessage(limitKey), {
        "retry-after": retryAfterSeconds(decision.retryAfterMs),
      });
    }
  }
  return null;
}

const tooLarge = () =>
  refuse(413, "mnote_tool_payload_too_large", TOOL_ERROR_MESSAGES.payloadTooLarge, { connection: "close" });

/**
 * The one door of the panel's `/api/hermes/*` adapters: `admit` (Origin, token), one call of the budget, and a
 * POST's body read with the bridge's cap. (`/api/trpc` takes the same steps, with tRPC's own count of the calls.)
 */
export async function openPanelDoor(req: Request, options: DoorOptions): Promise<OpenedDoor | Response> {
  const admitted = await admit(req, options);
  if (admitted instanceof Response) return admitted;
  const spent = await takeBudget(options.limiter, admitted.limitKey, 1);
  if (spent) return spent;
  let body = new Uint8Array(new ArrayBuffer(0));
  if (req.method === "POST") {
    try {
      body = await readRequestBody(req, options.bodyLimit ?? LIMITS.requestBodyBytes);
    } catch (error) {
      if (error instanceof BodyTooLarge) return tooLarge();
      return refuse(400, "mnote_tool_invalid_input", "the request body could not be read");
    }
  }
  return { ...admitted, body };
}

/**
 * `/api/trpc`: the whole router behind the panel's door. tRPC refuses a batch over PANEL_MAX_BATCH_CALLS. Every call
 * carries `door: "panel"`, so only person tokens pass (agent tokens get the contract's refusal, `mnote.*` included).
 */
export async function handlePanelApi(req: Request, options: PanelApiOptions): Promise<Response> {
  const startedAt = performance.now();
  const { response, calls } = await answerPanelApi(req, options);
  // The panel's door in the metrics: one procedure by its name, a batch as `batch`, and `unknown` for a path that
  // names no procedure or a request refused before tRPC read which procedures it calls (its own Origin, a database
  // gone): a bounded label set, from tRPC's own reading of the request.
  const tool = calls.length > 1 ? "batch" : (calls[0]?.procedure && calls[0].path) || "unknown";
  recordToolCall(tool, "panel", response.ok ? "ok" : `http_${response.status}`, (performance.now() - startedAt) / 1000);
  return response;
}

/** What tRPC read of a request before any procedure ran: its calls (`info.calls`) and their type. */
type RequestInfo = Parameters<NonNullable<Parameters<typeof fetchRequestHandler>[0]["createContext"]>>[0]["info"];

/**
 * The door's steps around tRPC's handler, in the order of `openPanelDoor`: tRPC reads the request's calls (paths,
 * batch, subscription) and asks for the context before it reads any input, so there the stream cap is checked, the
 * budget taken (one call per procedure) and then the body read under the cap. A refusal decided there ends the
 * request with the door's own answer, never tRPC's.
 */
async function answerPanelApi(
  req: Request,
  options: PanelApiOptions,
): Promise<{ response: Response; calls: RequestInfo["calls"] }> {
  let info: RequestInfo | null = null;
  const answer = (response: Response) => ({ response, calls: info?.calls ?? [] });
  const admitted = await admit(req, options);
  if (admitted instanceof Response) return answer(admitted);
  const { kernel, authorization, limitKey: key } = admitted;
  const maxStreams = options.maxStreamsPerToken ?? PANEL_MAX_STREAMS_PER_TOKEN;

  // A POST's body is read under the cap once the budget is taken (in createContext, below); tRPC reads it from here.
  let body: Uint8Array<ArrayBuffer> | null = null;
  const limit = options.bodyLimit ?? LIMITS.requestBodyBytes;
  const bodyForTrpc = () =>
    new ReadableStream<Uint8Array>(
      {
        pull(controller) {
          if (body) controller.enqueue(body);
          controller.close();
        },
      },
      // Pulled only when tRPC reads its input (a stream pulls once on creation otherwise): after createContext.
      { highWaterMark: 0 },
    );
  // A stream's subscription stops when its client goes away (the request's signal) or its body is cancelled.
  const streamEnded = new AbortController();
  const signal = AbortSignal.any([req.signal, streamEnded.signal]);
  const request =
    req.method === "POST"
      ? new Request(req.url, {
          method: req.method,
          headers: req.headers,
          body: bodyForTrpc(),
          signal,
          duplex: "half",
        } as RequestInit & { duplex: "half" })
      : new Request(req, { signal });

  let refusal: Response | null = null;
  const response = await fetchRequestHandler({
    endpoint: "/api/trpc",
    req: request,
    router: appRouter,
    maxBatchSize: PANEL_MAX_BATCH_CALLS,
    createContext: async (opts) => {
      info = opts.info;
      if (info.type === "subscription" && (openStreams.get(key) ?? 0) >= maxStreams) {
        refusal = refuse(
          429,
          "mnote_tool_rate_limited",
          "too many live-update streams open for this session; close other tabs",
          {
            "retry-after": "5",
          },
        );
      } else refusal = await takeBudget(options.limiter, key, info.calls.length);
      if (!refusal && req.method === "POST") {
        try {
          body = await readRequestBody(req, limit);
        } catch (error) {
          refusal =
            error instanceof BodyTooLarge
              ? tooLarge()
              : refuse(400, "mnote_tool_invalid_input", "the request body could not be read");
        }
      }
      // tRPC answers every call with this error; the door answers its own refusal in its place (below).
      if (refusal) throw new TRPCError({ code: "TOO_MANY_REQUESTS" });
      return createPanelContext({ kernel, authorization, settings: options.toolsSettings, hermes: options.hermes });
    },
    onError: ({ error, path }) => {
      if (error.code === "INTERNAL_SERVER_ERROR") console.error(`[panel] ${path} failed`, error.cause ?? error);
    },
  });
  if (refusal) {
    await response.body?.cancel().catch(() => undefined);
    return answer(refusal);
  }
  const stream = (info as RequestInfo | null)?.type === "subscription";
  return answer(
    stream && response.headers.get("content-type")?.startsWith("text/event-stream")
      ? countedStream(response, key, streamEnded)
      : response,
  );
}
