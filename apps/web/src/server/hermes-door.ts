import "server-only";
import { describeIssues, TOOL_ERROR_HTTP_STATUS, TOOL_ERROR_MESSAGES, type ToolErrorCode } from "@mnote/contract";
import {
  ApprovalPolicy,
  type AskEvent,
  checkReadiness,
  HermesClient,
  hermesFailureAnswer,
  type HermesReadiness,
  HermesRefused,
  type NumberedRunLine,
  type RunLine,
} from "@mnote/hermes-runs";
import type { AskRunRecord, SqlKernel } from "@mnote/kernel";
import { mnoteMetrics } from "@mnote/process";
import { AppError, AskQuestionSchema, createCaller, isAppError } from "@mnote/tools";
import { z } from "zod";
import { createPanelContext } from "./context";
import { type HermesConnection, panelEnv } from "./env";
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

/** How long a readiness check stands: `connected` is never older than this (issue 19: ≤ 30 s). */
const READINESS_TTL_MS = 10_000;

const cache = globalThis as {
  __mnoteHermesReadiness?: { at: number; value: Promise<HermesReadiness>; url: string };
};

function probe(hermes: HermesConnection): Promise<HermesReadiness> {
  return checkReadiness(
    new HermesClient({ url: hermes.url, apiKey: hermes.apiKey, timeoutMs: 5_000 }),
    hermes.allowedToolsets,
  );
}

/** Before a run the check is at most this old: a config.yaml changed to offer `terminal` stops the next runs. */
const RUN_READINESS_TTL_MS = 2_000;

/** Hermes's readiness, checked at most every READINESS_TTL_MS (at start, for the box) or as told (before a run). */
export function hermesReadiness(options: { maxAgeMs?: number } = {}): Promise<HermesReadiness> {
  const hermes = panelEnv().hermes;
  if (!hermes) return Promise.resolve({ connected: false, help: HERMES_NOT_CONFIGURED, version: null });
  const now = Date.now();
  const cached = cache.__mnoteHermesReadiness;
  const maxAge = options.maxAgeMs ?? READINESS_TTL_MS;
  if (cached && cached.url === hermes.url && now - cached.at < maxAge) return cached.value;
  const value = probe(hermes);
  cache.__mnoteHermesReadiness = { at: now, value, url: hermes.url };
  return value;
}

/** GET /api/hermes — may this panel ask Hermes now? (Only whether and why not: never its URL or key.) */
export async function hermesConnection(): Promise<Response> {
  const { connected, help } = await hermesReadiness();
  return Response.json({ connected, help }, { headers: { "cache-control": "no-store" } });
}

// --- The door --------------------------------------------------------------------------------------------------

export interface AskDoor {
  caller: ReturnType<typeof createCaller>;
  /** The signed-in person, if the cookie holds a live token (the router still decides everything). */
  userId: string | null;
  kernel: SqlKernel;
  hermes: HermesClient;
  body: unknown;
}

/**
 * The panel's door, then: Hermes configured, a JSON body; the router caller for the signed-in person. With
 * `askHermes`, what a route needs to send a conversation's next turn (e.g. a rejection's reason).
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
    userId: door.token?.userId ?? null,
    kernel: door.kernel,
    hermes: new HermesClient(env.hermes),
    body,
  };
}

const invalid = (error: z.ZodError) => refuse("mnote_tool_invalid_input", describeIssues(error, { root: "body" }));

const json = (body: unknown, status = 200) => Response.json(body, { status, headers: { "cache-control": "no-store" } });

// --- Asking -----------------------------------------------------------------------------------------------------

export const AskBody = z.object({
  workspaceId: z.string().min(1).max(128),
  documentId: z.string().min(1).max(128),
  input: AskQuestionSchema,
  sessionId: z.string().max(256).optional(),
  /** One per question the person sends: a retried start names the same run (and Hermes's Idempotency-Key). */
  startKey: z
    .string()
    .regex(/^[\w-]{8,128}$/)
    .optional(),
});
export type AskInput = z.infer<typeof AskBody>;

/** A run counts as going on while the instance reading it wrote within this long (Hermes keeps alive every 30 s). */
const PUMP_SILENCE_MS = 75_000;
const isGoingOn = (run: AskRunRecord, now = Date.now()) =>
  run.status === "running" && now - Date.parse(run.pumpedAt) < PUMP_SILENCE_MS;

/**
 * Ask Hermes one question about a page, as the signed-in person: the first turn of a conversation or the
 * next one (`sessionId`). The door's POST /api/hermes/runs, and the function any server code uses to send
 * a conversation's next turn (e.g. a rejection's reason). Answers 202 {runId, sessionId, revision}.
 */
export async function askHermes(door: AskDoor, ask: AskInput): Promise<Response> {
  const { workspaceId, documentId, input, sessionId, startKey } = ask;
  if (startKey && door.userId) {
    // A retried start (a double click, a lost answer): the run this key started, if it is this question's.
    const again = await door.kernel.ask.findRunByKey(door.userId, startKey);
    if (again) {
      const same =
        again.workspaceId === workspaceId &&
        again.documentId === documentId &&
        (sessionId === undefined || sessionId === again.sessionId);
      if (!same) return refuse("mnote_tool_idempotency_conflict", TOOL_ERROR_MESSAGES.idempotencyConflict);
      const run = await ownRun(door, again.runId);
      if (run instanceof Response) return run;
      return json({ runId: run.runId, sessionId: run.sessionId, revision: null }, 202);
    }
  }
  let started;
  try {
    started = await door.caller.panel.ask.start({ workspaceId, documentId, sessionId });
  } catch (error) {
    return routerRefusal(error);
  }
  const answer = (run: { runId: string }) =>
    json({ runId: run.runId, sessionId: started.sessionId, revision: started.revision }, 202);
  // One run of a conversation at a time: a run's calls are then the conversation's records between its start
  // and the next run's (Hermes's events carry no tool-call id, and the plugin gets no run id; decision 0021).
  const latest = sessionId ? await door.kernel.ask.latestRun(started.sessionId) : null;
  if (latest && isGoingOn(latest))
    return refuse("mnote_tool_conflict", "Hermes is still answering in this conversation; wait for it or stop it.");
  const readiness = await hermesReadiness({ maxAgeMs: RUN_READINESS_TTL_MS });
  if (!readiness.connected) return refuse("mnote_tool_unavailable", readiness.help ?? HERMES_NOT_CONFIGURED, {}, 503);
  try {
    // A follow-up question: Hermes keeps the conversation, /v1/runs does not load it by session id.
    const conversationHistory = sessionId ? await door.hermes.conversation(started.sessionId) : [];
    const { runId } = await door.hermes.startRun({
      input,
      instructions: started.instructions,
      sessionId: started.sessionId,
      conversationHistory,
      idempotencyKey: startKey ? `mnote_${started.userId}_${startKey}` : undefined,
    });
    try {
      await door.kernel.ask.recordRun({
        runId,
        sessionId: started.sessionId,
        userId: started.userId,
        workspaceId,
        documentId,
        startKey: startKey ?? null,
      });
    } catch (error) {
      // The same key twice at once: Hermes ≥ 0.21 started one run; the record that stands names it.
      const again = startKey ? await door.kernel.ask.findRunByKey(started.userId, startKey) : null;
      if (again) return answer(again);
      throw error;
    }
    void pumpRun(door.kernel, door.hermes, runId);
    return answer({ runId });
  } catch (error) {
    return hermesFailure(error);
  }
}

/** POST /api/hermes/runs — ask Hermes about a page. */
export async function startRun(req: Request): Promise<Response> {
  const door = await openAskDoor(req);
  if (door instanceof Response) return door;
  const parsed = AskBody.safeParse(door.body);
  if (!parsed.success) return invalid(parsed.error);
  return askHermes(door, parsed.data);
}

// --- Reading a run into the database ------------------------------------------------------------------------

/** A run's lines kept at most (text is merged into one line per flush); past it only the outcome is kept. */
const MAX_RUN_LINES = 2_000;
/** Text is written at most this often: a token-by-token stream must not become a row per token. */
const FLUSH_MS = 150;

/**
 * Reads the run's events from Hermes (it serves them to one reader) and writes them, as the panel's lines,
 * to the database, where every instance's readers find them. Approval requests that are not for an mnote
 * tool are answered `deny` here, on the server, and recorded as such; the rest are relayed with once/deny.
 */
async function pumpRun(kernel: SqlKernel, hermes: HermesClient, runId: string): Promise<void> {
  const policy = new ApprovalPolicy();
  let pending: RunLine[] = [];
  let text = "";
  let written = 0;
  let ended = false;
  /** Text so far, then the line: the order the person saw them in. */
  let outcome: "completed" | "failed" | "cancelled" | "lost" = "lost";
  const push = (line: RunLine) => {
    if (line.type === "completed" || line.type === "failed" || line.type === "cancelled" || line.type === "lost")
      outcome = line.type;
    else if (line.type === "status")
      outcome =
        line.status === "completed" || line.status === "failed" || line.status === "cancelled" ? line.status : "lost";
    if (text) pending.push({ type: "delta", text });
    text = "";
    pending.push(line);
  };
  const flush = async (end = false) => {
    const lines = text ? [...pending, { type: "delta", text } satisfies RunLine] : pending;
    pending = [];
    text = "";
    // Past the bound only what the run did is kept; its whole answer comes with `completed` anyway.
    const keep = lines.length <= MAX_RUN_LINES - written ? lines : lines.filter((line) => line.type !== "delta");
    written += keep.length;
    await kernel.ask.appendRunLines(
      runId,
      keep.map((line) => JSON.stringify(line)),
      end,
    );
  };
  // Marks the run alive while Hermes is silent (a model thinking, a person deciding).
  const heartbeat = setInterval(() => void kernel.ask.appendRunLines(runId, [], false).catch(() => undefined), 20_000);
  let timer: ReturnType<typeof setTimeout> | null = null;
  let chain = Promise.resolve();
  const enqueueFlush = () => {
    chain = chain.then(() => flush()).catch((error) => console.error("[panel] run lines not written", error));
  };
  const schedule = (now: boolean) => {
    if (now) {
      if (timer) clearTimeout(timer);
      timer = null;
      enqueueFlush();
    } else
      timer ??= setTimeout(() => {
        timer = null;
        enqueueFlush();
      }, FLUSH_MS);
  };
  try {
    const events = await hermes.events(runId);
    for await (const event of events) {
      const line = await decide(policy, hermes, runId, event);
      if (line.type === "delta") {
        text += line.text;
        schedule(false);
        continue;
      }
      push(line);
      schedule(true);
      if (line.type === "closed") ended = true;
    }
    if (!ended) push(await lostOrStatus(hermes, runId));
  } catch {
    push(await lostOrStatus(hermes, runId));
  } finally {
    clearInterval(heartbeat);
    if (timer) clearTimeout(timer);
    await chain;
    await flush(true).catch((error) => console.error("[panel] run lines not written", error));
    mnoteMetrics().hermesRuns.inc({ outcome });
  }
}

/** What the panel does with one event: an approval request is relayed (once/deny) or denied here. */
async function decide(policy: ApprovalPolicy, hermes: HermesClient, runId: string, event: AskEvent): Promise<RunLine> {
  policy.observe(event);
  if (event.type !== "approval.request") return event;
  const verdict = policy.verdict(event);
  if (verdict.relay) return { ...event, choices: verdict.choices };
  await hermes.answerApproval(runId, "deny").catch((error) => console.error("[panel] could not deny", error));
  return { type: "approval.denied", description: event.description, command: event.command, reason: verdict.reason };
}

async function lostOrStatus(hermes: HermesClient, runId: string): Promise<RunLine> {
  try {
    const status = await hermes.status(runId);
    if (["completed", "failed", "cancelled"].includes(status.status))
      return { type: "status", status: status.status, error: status.error };
  } catch {
    // Hermes is gone: say so.
  }
  return {
    type: "lost",
    message:
      "The connection to Hermes was lost; the run may go on in Hermes. Its tool calls show below from the audit trail.",
  };
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

/** How an ended run ended, from its last lines (Hermes's outcome, the panel's `lost`). */
async function endOf(kernel: SqlKernel, runId: string): Promise<RunLine | null> {
  let last: RunLine | null = null;
  for (let after = 0; ;) {
    const lines = await kernel.ask.listRunLines(runId, after, 500);
    if (lines.length === 0) return last;
    for (const { seq, line } of lines) {
      after = seq;
      const parsed = JSON.parse(line) as RunLine;
      if (parsed.type === "completed") last = { type: "status", status: "completed", error: null };
      else if (parsed.type === "failed") last = { type: "status", status: "failed", error: parsed.message };
      else if (parsed.type === "cancelled") last = { type: "status", status: "cancelled", error: null };
      else if (parsed.type === "lost" || parsed.type === "status") last = parsed;
    }
  }
}

/** How often a reader looks for new lines of a live run. */
const POLL_MS = 200;

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
  const after = Number(query.get("after") ?? 0);
  let seq = Number.isSafeInteger(after) && after > 0 ? after : 0;
  const { kernel } = door;
  const encoder = new TextEncoder();
  if (run.status === "ended" && query.get("reload") === "1") {
    // A reader that comes back to an ended run (a reload after the end) gets how it ended, not its text again:
    // the chat stays in Hermes; the run's calls are in the audit trail.
    const outcome = (await endOf(kernel, runId).catch(() => null)) ?? (await lostOrStatus(door.hermes, runId));
    return new Response(`${JSON.stringify({ ...outcome, seq: Number.MAX_SAFE_INTEGER })}\n`, {
      headers: { "content-type": "application/x-ndjson; charset=utf-8", "cache-control": "no-store" },
    });
  }
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      for (;;) {
        if (req.signal.aborted) return controller.close();
        const lines = await kernel.ask.listRunLines(runId, seq, 200).catch(() => null);
        if (lines === null) {
          controller.enqueue(
            encoder.encode(
              `${JSON.stringify({ type: "lost", message: TOOL_ERROR_MESSAGES.unavailable, seq: seq + 1 })}\n`,
            ),
          );
          return controller.close();
        }
        if (lines.length > 0) {
          const text = lines
            .map((line) => {
              seq = line.seq;
              return `${JSON.stringify({ ...(JSON.parse(line.line) as RunLine), seq: line.seq } satisfies NumberedRunLine)}\n`;
            })
            .join("");
          return controller.enqueue(encoder.encode(text));
        }
        const now = await kernel.ask.getRun(runId).catch(() => null);
        if (!now || now.status === "ended") return controller.close();
        if (!isGoingOn(now)) {
          // The instance that read Hermes's stream is gone (Hermes serves it once): Hermes's word on the run.
          const line = await lostOrStatus(door.hermes, runId);
          controller.enqueue(encoder.encode(`${JSON.stringify({ ...line, seq: seq + 1 })}\n`));
          return controller.close();
        }
        await sleep(POLL_MS);
      }
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

/** Only these are relayed: `session` and `always` would change Hermes for every later run on its host. */
const ApprovalBody = z.object({ choice: z.enum(["once", "deny"]) });

/** POST /api/hermes/runs/{runId}/approval — the person's answer to an approval request the panel relayed. */
export async function answerApproval(req: Request, runId: string): Promise<Response> {
  const door = await openAskDoor(req);
  if (door instanceof Response) return door;
  const run = await ownRun(door, runId);
  if (run instanceof Response) return run;
  const parsed = ApprovalBody.safeParse(door.body);
  if (!parsed.success) return invalid(parsed.error);
  try {
    await door.hermes.answerApproval(runId, parsed.data.choice);
    return json({ runId, choice: parsed.data.choice });
  } catch (error) {
    if (error instanceof HermesRefused && error.status === 409)
      return refuse("mnote_tool_conflict", "Hermes is not waiting for an approval on this run any more.");
    return hermesFailure(error);
  }
}

/** POST /api/hermes/runs/{runId}/stop — stop the run (Hermes interrupts the agent; the stream ends with `cancelled`). */
export async function stopRun(req: Request, runId: string): Promise<Response> {
  const door = await openAskDoor(req);
  if (door instanceof Response) return door;
  const run = await ownRun(door, runId);
  if (run instanceof Response) return run;
  try {
    await door.hermes.stop(runId);
    return json({ runId, status: "stopping" });
  } catch (error) {
    if (error instanceof HermesRefused && error.status === 404) return json({ runId, status: "ended" });
    return hermesFailure(error);
  }
}
