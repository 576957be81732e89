import "server-only";
import { describeIssues, TOOL_ERROR_HTTP_STATUS, TOOL_ERROR_MESSAGES, type ToolErrorCode } from "@mnote/contract";
import {
  checkReadiness,
  followRun,
  HermesClient,
  hermesFailureAnswer,
  type HermesReadiness,
  HermesRefused,
  ndjson,
  pumpRun,
  ReadinessCache,
  RUN_READINESS_TTL_MS,
  startAskRun,
  ApprovalBodySchema,
  type ApprovalAnswer,
  type AskBody,
  AskBodySchema,
  type ConnectionAnswer,
  type StartedRunAnswer,
  SteerBodySchema,
  type SteerAnswer,
  type StopAnswer,
} from "@mnote/hermes-runs";
import type { AskRunRecord, SqlKernel } from "@mnote/kernel";
import { mnoteMetrics } from "@mnote/process";
import { AppError, createCaller, isAppError } from "@mnote/tools";
import { z } from "zod";
import { createPanelContext } from "./context";
import { panelEnv } from "./env";
import { getKernel } from "./kernel";
import { openPanelDoor, refuse as refuseWith } from "./panel-api";
import { panelLimiter } from "./rate-limit";

/**
 * `/api/hermes/*`: the browser's door to "Ask Hermes" (decisions 0019, 0021). The panel's one door
 * (`openPanelDoor`: Origin, token, rate limit, body cap), and every decision about who may do what is the
 * router's (`panel.ask.*`): this module carries the router's answer to Hermes with the key the browser
 * never sees, reads each run's events into the database (so any panel instance can stream, stop and
 * answer it), and answers Hermes's approval requests that are not for an mnote tool itself.
 */

/** A refusal in the contract's words, with the contract's status for its code unless told otherwise. */
export function refuse(
  code: ToolErrorCode,
  message: string,
  headers: Record<string, string> = {},
  status = TOOL_ERROR_HTTP_STATUS[code],
) {
  return refuseWith(status, code, message, headers);
}

/** What the panel says when Hermes is not configured. */
export const HERMES_NOT_CONFIGURED =
  "Hermes is not connected to this panel: set MNOTE_HERMES_URL and MNOTE_HERMES_API_KEY (README: Connecting Hermes to the panel) and restart it.";

function hermesFailure(error: unknown): Response {
  const answer = hermesFailureAnswer(error);
  if (answer) return refuse(answer.code, answer.message, answer.headers, answer.status);
  console.error("[panel] Hermes call failed", error);
  return refuse("mnote_tool_unavailable", TOOL_ERROR_MESSAGES.unavailable);
}

/** The router's refusal (an AppError from panel.ask.*) as the door's answer: the router's one mapping, read back. */
function routerRefusal(error: unknown): Response {
  if (!isAppError(error)) console.error("[panel] ask refused unexpectedly", error);
  const refusal = AppError.from(isAppError(error) ? error : null);
  return refuse(refusal.code, refusal.message);
}

// --- Is Hermes there, and would it offer a run only mnote's tools? -------------------------------------------

/** One cache per server process (on globalThis: Next's route bundles each load this module). */
const shared = globalThis as { __mnoteHermesReadiness?: ReadinessCache };

/** Hermes's readiness, checked at most every READINESS_TTL_MS (for the box) or as told (before a run). */
export function hermesReadiness(options: { maxAgeMs?: number } = {}): Promise<HermesReadiness> {
  const hermes = panelEnv().hermes;
  if (!hermes) return Promise.resolve({ connected: false, help: HERMES_NOT_CONFIGURED, version: null });
  shared.__mnoteHermesReadiness ??= new ReadinessCache();
  return shared.__mnoteHermesReadiness.get(
    hermes.url,
    () =>
      checkReadiness(
        new HermesClient({ url: hermes.url, apiKey: hermes.apiKey, timeoutMs: 5_000 }),
        hermes.allowedToolsets,
      ),
    options.maxAgeMs,
  );
}

/** GET /api/hermes — may this panel ask Hermes now? (Only whether and why not: never its URL or key.) */
export async function hermesConnection(): Promise<Response> {
  const { connected, help } = await hermesReadiness();
  return Response.json({ connected, help } satisfies ConnectionAnswer, { headers: { "cache-control": "no-store" } });
}

// --- The door --------------------------------------------------------------------------------------------------

export interface AskDoor {
  caller: ReturnType<typeof createCaller>;
  /** For the run pump only (see `pump`): every decision is the router's, through `caller`. */
  kernel: SqlKernel;
  hermes: HermesClient;
  body: unknown;
}

/**
 * The panel's door, then: Hermes configured, a JSON body; the router caller for the signed-in person.
 */
export async function openAskDoor(req: Request): Promise<AskDoor | Response> {
  const env = panelEnv();
  const door = await openPanelDoor(req, {
    kernel: getKernel,
    limiter: panelLimiter(),
    allowedOrigins: env.allowedOrigins,
  });
  if (door instanceof Response) return door;
  if (!env.hermes) return refuse("mnote_tool_unavailable", HERMES_NOT_CONFIGURED);
  let body: unknown = undefined;
  if (req.method === "POST") {
    try {
      body = door.body.byteLength ? JSON.parse(new TextDecoder().decode(door.body)) : {};
    } catch {
      return refuse("mnote_tool_invalid_input", "the request body is not JSON");
    }
  }
  const caller = createCaller(
    createPanelContext({ kernel: door.kernel, authorization: door.authorization, settings: env.tools }),
  );
  return {
    caller,
    kernel: door.kernel,
    hermes: new HermesClient(env.hermes),
    body,
  };
}

const invalid = (error: z.ZodError) => refuse("mnote_tool_invalid_input", describeIssues(error, { root: "body" }));

const json = (body: unknown, status = 200) => Response.json(body, { status, headers: { "cache-control": "no-store" } });

// --- Asking -----------------------------------------------------------------------------------------------------

/**
 * Ask Hermes one question about a page, as the signed-in person: the first turn of a conversation or the
 * next one (`sessionId`): the door's POST /api/hermes/runs (the browser's "Tell Hermes" sends a rejection's
 * reason through it too). Answers 202 `StartedRunAnswer`.
 */
async function askHermes(door: AskDoor, ask: AskBody): Promise<Response> {
  const { workspaceId, documentId, input, sessionId, startKey, threadId } = ask;
  if (startKey) {
    // A retried start (a double click, a lost answer): the run this key started, if it is this question's.
    let again;
    try {
      again = await door.caller.panel.ask.replay({ workspaceId, documentId, sessionId, startKey });
    } catch (error) {
      return routerRefusal(error);
    }
    if (again) return json({ ...again, revision: null } satisfies StartedRunAnswer, 202);
  }
  let started;
  try {
    started = await door.caller.panel.ask.start({ workspaceId, documentId, sessionId, threadId });
  } catch (error) {
    return routerRefusal(error);
  }
  const answer = (run: { runId: string }) =>
    json(
      { runId: run.runId, sessionId: started.sessionId, revision: started.revision } satisfies StartedRunAnswer,
      202,
    );
  const readiness = await hermesReadiness({ maxAgeMs: RUN_READINESS_TTL_MS });
  if (!readiness.connected) return refuse("mnote_tool_unavailable", readiness.help ?? HERMES_NOT_CONFIGURED, {}, 503);
  try {
    const { runId } = await startAskRun({
      hermes: door.hermes,
      records: { record: (run) => door.caller.panel.ask.record(run) },
      asked: started,
      input,
      followUp: sessionId !== undefined,
      startKey,
      features: readiness.features,
    });
    void pump(door.kernel, door.hermes, runId);
    return answer({ runId });
  } catch (error) {
    // The router's refusal to record the run (the page lost meanwhile), or Hermes's failure.
    return isAppError(error) ? routerRefusal(error) : hermesFailure(error);
  }
}

/** POST /api/hermes/runs — ask Hermes about a page. */
export async function startRun(req: Request): Promise<Response> {
  const door = await openAskDoor(req);
  if (door instanceof Response) return door;
  const parsed = AskBodySchema.safeParse(door.body);
  if (!parsed.success) return invalid(parsed.error);
  return askHermes(door, parsed.data);
}

// --- Reading a run into the database ------------------------------------------------------------------------

/**
 * Reads the run's events from Hermes into the kernel's run lines, where every instance's readers find them
 * (`pumpRun`, packages/hermes-runs), and counts how it ended. The lines go with the run sweep (run-sweep.ts).
 * The one kernel write here not made through the router, on purpose: it is the server relaying Hermes's stream
 * (no person's decision in it), and a router procedure for it would be reachable from the browser at
 * /api/trpc — a person could write lines into their own run or keep it alive past the sweep. Every person-facing
 * step of a run (start, replay, record, check, lines) is the router's.
 */
async function pump(kernel: SqlKernel, hermes: HermesClient, runId: string): Promise<void> {
  const end = await pumpRun({
    hermes,
    store: kernel.ask,
    runId,
    // The error's kind only: a failure's message may quote what Hermes said.
    warn: (message, error) =>
      console.error(`[panel] ${message}`, { runId, errorType: error instanceof Error ? error.name : typeof error }),
  });
  mnoteMetrics().hermesRuns.inc({ outcome: end.outcome });
}

// --- Following, answering, stopping: from any panel instance -------------------------------------------------

const RunIdSchema = z.string().regex(/^[\w-]{1,128}$/);

/** The run, if the signed-in person started it and may still write its page (the router's word). */
async function ownRun(door: AskDoor, runId: string): Promise<AskRunRecord | Response> {
  if (!RunIdSchema.safeParse(runId).success) return refuse("mnote_tool_not_found", "no such run of yours");
  try {
    return await door.caller.panel.ask.check({ runId });
  } catch (error) {
    return routerRefusal(error);
  }
}

/** How often a reader looks for new lines of a live run. */
const POLL_MS = 200;
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * GET /api/hermes/runs/{runId}/events?after=N[&reload=1] — the run's lines after line N as newline-delimited
 * JSON (`NumberedRunLine`), from the database: any instance serves them, a reload reads a live run again
 * (`reload=1`: an ended one answers only how it ended). The browser going away stops the reading, not the run.
 */
export async function runEvents(req: Request, runId: string): Promise<Response> {
  const door = await openAskDoor(req);
  if (door instanceof Response) return door;
  const run = await ownRun(door, runId);
  if (run instanceof Response) return run;
  const query = new URL(req.url).searchParams;
  const lines = followRun({
    reader: { readRun: (id, after, limit) => door.caller.panel.ask.lines({ runId: id, after, limit }) },
    hermes: door.hermes,
    runId,
    after: Number(query.get("after") ?? 0),
    reload: query.get("reload") === "1",
    signal: req.signal,
    wait: sleep,
    pollMs: POLL_MS,
  });
  return new Response(ndjson(lines), {
    headers: {
      "content-type": "application/x-ndjson; charset=utf-8",
      "cache-control": "no-store",
      "x-accel-buffering": "no",
    },
  });
}

/** POST /api/hermes/runs/{runId}/approval — the person's answer to an approval request the panel relayed. */
export async function answerApproval(req: Request, runId: string): Promise<Response> {
  const door = await openAskDoor(req);
  if (door instanceof Response) return door;
  const run = await ownRun(door, runId);
  if (run instanceof Response) return run;
  const parsed = ApprovalBodySchema.safeParse(door.body);
  if (!parsed.success) return invalid(parsed.error);
  try {
    await door.hermes.answerApproval(runId, parsed.data.choice, parsed.data.requestId);
    return json({ runId, choice: parsed.data.choice } satisfies ApprovalAnswer);
  } catch (error) {
    if (error instanceof HermesRefused && error.status === 409)
      return refuse("mnote_tool_conflict", "Hermes is not waiting for an approval on this run any more.");
    return hermesFailure(error);
  }
}

/**
 * POST /api/hermes/runs/{runId}/stop — stop the run (Hermes interrupts the agent; the stream ends with `cancelled`).
 * A run already over, one Hermes no longer knows, and (0.21) one its process no longer runs (409 `run_not_active`,
 * after a restart) are all `ended`: a clear answer, not a gateway failure.
 */
export async function stopRun(req: Request, runId: string): Promise<Response> {
  const door = await openAskDoor(req);
  if (door instanceof Response) return door;
  const run = await ownRun(door, runId);
  if (run instanceof Response) return run;
  try {
    const { status } = await door.hermes.stop(runId);
    return json({ runId, status: status === "stopping" ? "stopping" : "ended" } satisfies StopAnswer);
  } catch (error) {
    return hermesFailure(error);
  }
}

/**
 * POST /api/hermes/runs/{runId}/steer — add the person's words to what Hermes is doing in a live run (Hermes 0.21).
 * The same person and rights as asking (the router's `panel.ask.check`); an older Hermes, or a run that is over,
 * answers with what to do instead.
 */
export async function steerRun(req: Request, runId: string): Promise<Response> {
  const door = await openAskDoor(req);
  if (door instanceof Response) return door;
  const run = await ownRun(door, runId);
  if (run instanceof Response) return run;
  const parsed = SteerBodySchema.safeParse(door.body);
  if (!parsed.success) return invalid(parsed.error);
  try {
    await door.hermes.steer(runId, parsed.data.input);
    return json({ runId } satisfies SteerAnswer);
  } catch (error) {
    if (
      error instanceof HermesRefused &&
      (error.status === 404 || error.status === 405) &&
      error.hermesCode !== "run_not_found"
    )
      return refuse("mnote_tool_unavailable", STEER_UNSUPPORTED, {}, 501);
    if (error instanceof HermesRefused && (error.status === 409 || error.status === 404))
      return refuse("mnote_tool_conflict", "This run is over; ask your words as a new question.");
    return hermesFailure(error);
  }
}

/** What the panel says when this Hermes cannot take words into a live run. */
export const STEER_UNSUPPORTED =
  "This Hermes cannot add to a running answer (Hermes 0.21 can); wait for the answer or stop it, then ask again.";
