import "server-only";
import { LIMITS, TOOL_ERROR_HTTP_STATUS, TOOL_ERROR_MESSAGES, type ToolErrorCode } from "@mnote/contract";
import { hashToken, isTokenLive, type KernelAdapter, type TokenRecord } from "@mnote/kernel";
import { AppError, bearerSecret, createCaller, createToolsContext, isAppError } from "@mnote/tools";
import { z } from "zod";
import { panelEnv } from "./env";
import { HermesClient, HermesRefused, HermesUnreachable, type RunLine } from "./hermes-client";
import { getKernel } from "./kernel";
import { foreignOrigin } from "./origin";
import { BodyTooLarge, readCappedBody } from "./panel-api";
import { panelLimiter } from "./rate-limit";
import { tokenFromCookieHeader } from "./session-cookie";

/**
 * `/api/hermes/*`: the browser's door to "Ask Hermes". The same limits as `/api/trpc`
 * (Origin check on changes, the per-token rate limit, the body cap), and every decision
 * about who may do what is the router's (`panel.ask.*`, requirePage): this module only
 * carries the router's answer to Hermes with the key the browser never sees.
 */

/** A refusal in the contract's words (the panel reads `error.message`). */
export function refuse(
  code: ToolErrorCode,
  message: string,
  headers: Record<string, string> = {},
  status = TOOL_ERROR_HTTP_STATUS[code],
) {
  return Response.json({ error: { code, message } }, { status, headers: { "cache-control": "no-store", ...headers } });
}

/** What the panel says when Hermes is not configured, cannot be reached, or refuses. */
export const HERMES_NOT_CONFIGURED =
  "Hermes is not connected to this panel: set MNOTE_HERMES_URL and MNOTE_HERMES_API_KEY (README: Connecting Hermes to the panel) and restart it.";

function hermesFailure(error: unknown): Response {
  if (error instanceof HermesUnreachable)
    return refuse("mnote_tool_unavailable", `${error.message} Nothing was sent; ask again when it is back.`, {}, 502);
  if (error instanceof HermesRefused) {
    const why =
      error.status === 401
        ? "Hermes refused the panel's key: MNOTE_HERMES_API_KEY must equal Hermes's API_SERVER_KEY."
        : error.status === 429
          ? "Hermes is busy with as many runs as it allows; try again in a moment."
          : `Hermes answered ${error.status}: ${error.hermesMessage}`;
    return refuse(
      error.status === 429 ? "mnote_tool_rate_limited" : "mnote_tool_unavailable",
      why,
      error.status === 429 ? { "retry-after": "1" } : {},
      error.status === 429 ? 429 : 502,
    );
  }
  console.error("[panel] Hermes call failed", error);
  return refuse("mnote_tool_unavailable", TOOL_ERROR_MESSAGES.unavailable);
}

/** The router's refusal (an AppError from panel.ask.*) as the door's answer: the router's one mapping, read back. */
function routerRefusal(error: unknown): Response {
  if (!isAppError(error)) console.error("[panel] ask refused unexpectedly", error);
  const refusal = AppError.from(isAppError(error) ? error : null);
  return refuse(refusal.code, refusal.message);
}

/** A run this panel started: whose it is and on which page (no chat text: that stays in Hermes). */
interface RunOwner {
  userId: string;
  workspaceId: string;
  documentId: string;
  sessionId: string;
  startedAt: number;
}

/** Runs are remembered for as long as Hermes keeps their status (its _RUN_STATUS_TTL), and only so many. */
const RUN_TTL_MS = 60 * 60 * 1000;
const MAX_RUNS = 2_000;
const shared = globalThis as { __mnoteHermesRuns?: Map<string, RunOwner> };
const runs = () => (shared.__mnoteHermesRuns ??= new Map<string, RunOwner>());

function remember(runId: string, owner: RunOwner) {
  const all = runs();
  const now = Date.now();
  for (const [id, run] of all) if (now - run.startedAt > RUN_TTL_MS || all.size >= MAX_RUNS) all.delete(id);
  all.set(runId, owner);
}

interface Door {
  caller: ReturnType<typeof createCaller>;
  hermes: HermesClient;
  body: unknown;
}

/**
 * Everything before the work: Hermes configured, Origin, rate limit, body cap, a JSON body.
 * Returns the router caller for the signed-in person (the router decides the rest).
 */
async function openDoor(req: Request): Promise<Door | Response> {
  const env = panelEnv();
  if (req.method !== "GET" && foreignOrigin(req, env.allowedOrigins)) {
    return refuse(
      "mnote_tool_permission_denied",
      "cross-origin request refused: the panel accepts changes only from its own pages",
    );
  }
  if (!env.hermes) return refuse("mnote_tool_unavailable", HERMES_NOT_CONFIGURED);
  const token = tokenFromCookieHeader(req.headers.get("cookie"));
  let kernel: KernelAdapter;
  let record: TokenRecord | null = null;
  try {
    kernel = await getKernel();
    const secret = bearerSecret(token);
    if (secret) record = await kernel.findTokenByHash(hashToken(secret));
  } catch (error) {
    console.error("[panel] the database is unavailable", error);
    return refuse("mnote_tool_unavailable", TOOL_ERROR_MESSAGES.unavailable, { "retry-after": "1" });
  }
  // One budget with /api/trpc: asking Hermes is not a way around the panel's rate limit.
  const decision = await panelLimiter().take(isTokenLive(record) ? `token:${record.id}` : "anonymous");
  if (!decision.allowed) {
    return refuse("mnote_tool_rate_limited", TOOL_ERROR_MESSAGES.rateLimited, {
      "retry-after": String(Math.max(1, Math.ceil(decision.retryAfterMs / 1000))),
    });
  }
  let body: unknown = undefined;
  if (req.method === "POST") {
    try {
      const bytes = await readCappedBody(req, LIMITS.requestBodyBytes);
      body = bytes.byteLength ? JSON.parse(new TextDecoder().decode(bytes)) : {};
    } catch (error) {
      if (error instanceof BodyTooLarge)
        return refuse("mnote_tool_payload_too_large", TOOL_ERROR_MESSAGES.payloadTooLarge, { connection: "close" });
      return refuse("mnote_tool_invalid_input", "the request body is not JSON");
    }
  }
  const caller = createCaller(createToolsContext({ kernel, authorization: token, door: "panel", settings: env.tools }));
  return { caller, hermes: new HermesClient(env.hermes), body };
}

const invalid = (error: z.ZodError) =>
  refuse(
    "mnote_tool_invalid_input",
    error.issues
      .map((issue) => `${issue.path.join(".") || "body"}: ${issue.message}`)
      .join("; ")
      .slice(0, 500),
  );

/** How long a question may be: a question, not a document (Hermes reads the page with its tools). */
export const MAX_QUESTION_CHARS = 4_000;

const StartBody = z.object({
  workspaceId: z.string().min(1).max(128),
  documentId: z.string().min(1).max(128),
  input: z.string().trim().min(1, "ask something").max(MAX_QUESTION_CHARS),
  sessionId: z.string().max(256).optional(),
});

/** POST /api/hermes/runs — ask Hermes about a page: the router says whether and with what, Hermes starts the run. */
export async function startRun(req: Request): Promise<Response> {
  const door = await openDoor(req);
  if (door instanceof Response) return door;
  const parsed = StartBody.safeParse(door.body);
  if (!parsed.success) return invalid(parsed.error);
  const { workspaceId, documentId, input, sessionId } = parsed.data;
  let ask;
  try {
    ask = await door.caller.panel.ask.start({ workspaceId, documentId, sessionId });
  } catch (error) {
    return routerRefusal(error);
  }
  try {
    // A follow-up question: Hermes keeps the conversation, /v1/runs does not load it by session id.
    const conversationHistory = sessionId ? await door.hermes.conversation(ask.sessionId) : [];
    const { runId } = await door.hermes.startRun({
      input,
      instructions: ask.instructions,
      sessionId: ask.sessionId,
      conversationHistory,
    });
    remember(runId, { userId: ask.userId, workspaceId, documentId, sessionId: ask.sessionId, startedAt: Date.now() });
    return Response.json(
      { runId, sessionId: ask.sessionId, revision: ask.revision },
      { status: 202, headers: { "cache-control": "no-store" } },
    );
  } catch (error) {
    return hermesFailure(error);
  }
}

/** The run, if the signed-in person started it and may still write its page (the router's word). */
async function ownRun(door: Door, runId: string): Promise<RunOwner | Response> {
  const run = runs().get(runId);
  // Someone else's run and an unknown one look the same: no leak of other people's run ids.
  if (!run)
    return refuse(
      "mnote_tool_not_found",
      "no such run of yours on this panel (it may have ended over an hour ago, or the panel restarted)",
    );
  let check;
  try {
    check = await door.caller.panel.ask.check({ workspaceId: run.workspaceId, documentId: run.documentId });
  } catch (error) {
    return routerRefusal(error);
  }
  if (check.userId !== run.userId)
    return refuse(
      "mnote_tool_not_found",
      "no such run of yours on this panel (it may have ended over an hour ago, or the panel restarted)",
    );
  return run;
}

/**
 * GET /api/hermes/runs/{runId}/events — the run's events as newline-delimited JSON (AskEvent),
 * read from Hermes's SSE by the server. The browser going away stops the reading, not the run.
 */
export async function runEvents(req: Request, runId: string): Promise<Response> {
  const door = await openDoor(req);
  if (door instanceof Response) return door;
  const run = await ownRun(door, runId);
  if (run instanceof Response) return run;
  const upstream = new AbortController();
  let events;
  try {
    events = await door.hermes.events(runId, upstream.signal);
  } catch (error) {
    if (error instanceof HermesRefused && error.status === 404) {
      // Hermes serves a run's events once; a second reader (a reload) gets its status instead.
      try {
        const status = await door.hermes.status(runId);
        return ndjson(
          (async function* () {
            yield { type: "status", status: status.status, error: status.error };
          })(),
          () => undefined,
        );
      } catch (inner) {
        return hermesFailure(inner);
      }
    }
    return hermesFailure(error);
  }
  req.signal.addEventListener("abort", () => upstream.abort(), { once: true });
  return ndjson(events, () => upstream.abort());
}

/** A stream of JSON lines; a lost Hermes mid-run becomes a last `lost` line, never a broken stream. */
function ndjson(events: AsyncIterable<RunLine>, cancel: () => void): Response {
  const encoder = new TextEncoder();
  const iterator = events[Symbol.asyncIterator]();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const next = await iterator.next();
        if (next.done) return controller.close();
        controller.enqueue(encoder.encode(`${JSON.stringify(next.value)}\n`));
      } catch {
        controller.enqueue(
          encoder.encode(
            `${JSON.stringify({ type: "lost", message: "The connection to Hermes was lost; the run may go on in Hermes. Its tool calls show below from the audit trail." } satisfies RunLine)}\n`,
          ),
        );
        controller.close();
      }
    },
    cancel() {
      cancel();
    },
  });
  return new Response(body, {
    headers: {
      "content-type": "application/x-ndjson; charset=utf-8",
      "cache-control": "no-store",
      "x-accel-buffering": "no",
    },
  });
}

const ApprovalBody = z.object({ choice: z.enum(["once", "session", "always", "deny"]) });

/** POST /api/hermes/runs/{runId}/approval — the person's answer to Hermes's own approval request. */
export async function answerApproval(req: Request, runId: string): Promise<Response> {
  const door = await openDoor(req);
  if (door instanceof Response) return door;
  const parsed = ApprovalBody.safeParse(door.body);
  if (!parsed.success) return invalid(parsed.error);
  const run = await ownRun(door, runId);
  if (run instanceof Response) return run;
  try {
    await door.hermes.answerApproval(runId, parsed.data.choice);
    return Response.json({ runId, choice: parsed.data.choice }, { headers: { "cache-control": "no-store" } });
  } catch (error) {
    if (error instanceof HermesRefused && error.status === 409)
      return refuse("mnote_tool_conflict", "Hermes is not waiting for an approval on this run any more.");
    return hermesFailure(error);
  }
}

/** POST /api/hermes/runs/{runId}/stop — stop the run (Hermes interrupts the agent; the stream ends with `cancelled`). */
export async function stopRun(req: Request, runId: string): Promise<Response> {
  const door = await openDoor(req);
  if (door instanceof Response) return door;
  const run = await ownRun(door, runId);
  if (run instanceof Response) return run;
  try {
    await door.hermes.stop(runId);
    return Response.json({ runId, status: "stopping" }, { headers: { "cache-control": "no-store" } });
  } catch (error) {
    if (error instanceof HermesRefused && error.status === 404)
      return Response.json({ runId, status: "ended" }, { headers: { "cache-control": "no-store" } });
    return hermesFailure(error);
  }
}

/** GET /api/hermes — is Hermes connected to this panel? (Only whether: never its URL or key.) */
export function hermesConnection(): Response {
  return Response.json(
    { connected: panelEnv().hermes !== null, help: panelEnv().hermes ? null : HERMES_NOT_CONFIGURED },
    { headers: { "cache-control": "no-store" } },
  );
}
