/**
 * The panel's server as a client of Hermes's API server (Hermes Agent v0.18.2,
 * gateway/platforms/api_server.py): start a run, follow its events, answer its approval
 * requests, stop it, and read which toolsets its runs get. Only the panel's server holds the
 * key; the browser talks to the router's `panel.hermes.*` (apps/web's /api/trpc), never to Hermes.
 *
 * Hermes's wire format, as its code has it:
 * - `POST /v1/runs` {input, instructions, session_id, conversation_history} → 202 {run_id, status: "started"};
 *   the run's tools get `task_id = session_id or run_id` and `session_id`.
 * - `GET /v1/runs/{id}/events`: SSE with `data: {json}` lines only (no `event:` field: the name is the
 *   payload's `event`), `: keepalive` every 30 s of silence, and `: stream closed` once the run is over.
 * - `GET /v1/toolsets` → {object: "list", platform: "api_server", data: [{name, label, description, enabled,
 *   configured, tools}]}: the toolsets a run of the API server gets (`enabled`), from config.yaml's
 *   `platform_toolsets.api_server` (hermes_cli/tools_config.py `_get_platform_tools`).
 * Hermes 0.21 (upstream NousResearch/hermes-agent @ 00067189, gateway/platforms/api_server.py and
 * api_server_run_idempotency.py; issue 35) adds, and the panel uses only where `GET /v1/capabilities` says so:
 * - `features.runs_idempotency` ({supported: true, durable, retention_seconds}): `POST /v1/runs` takes `Idempotency-Key` (a replay answers 202 with the same run and
 *   `Idempotency-Replayed: true`; another body under the key is 409 `idempotency_key_conflict`) and loads the
 *   conversation from `session_id` itself, so the panel sends no `conversation_history` (which would make the
 *   retried start's body differ once a turn is stored, and drops tool turns). 0.18–0.19 answer 404 there.
 * - `run.interrupted` / status `interrupted` (a run orphaned by a restart), `message.interim`, `run.steered`
 *   ({accepted: true}), a `preview` on `tool.completed`; `POST /v1/runs/{id}/steer` {input} (200, or 409
 *   `run_not_accepting_steer` unless the run is running); approval requests carry `request_id`, which
 *   the answer names; `/stop` answers an ended run 200 with its status, and a run not live in that process 409
 *   `run_not_active`.
 * - `POST /v1/runs/{id}/approval` {choice: once|session|always|deny} → 200, or 409 when nothing waits;
 *   `POST /v1/runs/{id}/stop` → 200 {status: "stopping"}, 404 for a run it no longer has.
 * - Refusals are OpenAI-style `{error: {message, type, code}}`; 401 for a wrong key, 429 when busy.
 */

import { createParser } from "eventsource-parser";

/** One server-sent event or comment, as the stream spelled it. */
export type SseItem = { kind: "event"; event: string | null; data: string } | { kind: "comment"; text: string };

/**
 * Server-sent events from a byte stream, read by `eventsource-parser` (the WHATWG rules: LF, CRLF or CR line
 * ends, multi-line data, comments, chunks split anywhere, even inside a character), handed on as they come.
 */
export async function* parseSse(body: ReadableStream<Uint8Array>): AsyncGenerator<SseItem> {
  const decoder = new TextDecoder();
  const reader = body.getReader();
  let ready: SseItem[] = [];
  const parser = createParser({
    onEvent: (message) => ready.push({ kind: "event", event: message.event ?? null, data: message.data }),
    onComment: (comment) => ready.push({ kind: "comment", text: comment.trim() }),
  });
  try {
    for (;;) {
      const { done, value } = await reader.read();
      // The stream ended: an event still without its blank line is whole (what the panel did before the parser).
      parser.feed(done ? `${decoder.decode()}\n\n` : decoder.decode(value, { stream: true }));
      const items = ready;
      ready = [];
      yield* items;
      if (done) return;
    }
  } finally {
    reader.releaseLock();
  }
}

/** What the panel shows of a run: Hermes's events, reduced to what a person reads, in the panel's words. */
export type AskEvent =
  | { type: "delta"; text: string }
  | { type: "tool.started"; tool: string; preview: string | null }
  | { type: "tool.completed"; tool: string; durationSeconds: number; error: boolean }
  | {
      type: "approval.request";
      description: string;
      command: string | null;
      choices: string[];
      /** Hermes 0.21 names each request; the answer names it back (null: 0.18–0.19). */
      requestId?: string | null;
    }
  | { type: "approval.responded"; choice: string }
  | { type: "completed"; output: string }
  | { type: "failed"; message: string }
  | { type: "cancelled" }
  /** Hermes 0.21: the run was orphaned by a restart of Hermes and will not go on. */
  | { type: "interrupted"; message: string }
  /**
   * Words the person added while the run went on (`POST /v1/runs/{id}/steer`, Hermes 0.21), once Hermes took them:
   * the panel's own line (Hermes's `run.steered` names no words), folded in by the box that sent them.
   */
  | { type: "steered"; text: string }
  /** `: stream closed`: Hermes has nothing more to say about this run. */
  | { type: "closed" };

/** The lines `panel.hermes.events` sends the browser: the run's events, plus the panel's own. */
export type RunLine =
  | AskEvent
  /** Hermes went away mid-run: the run may go on there. */
  | { type: "lost"; message: string }
  /** Hermes's word on a run whose events the panel no longer has. */
  | { type: "status"; status: string; error: string | null }
  /** An approval request the panel's server answered `deny` itself (it is not for an mnote tool). */
  | { type: "approval.denied"; description: string; command: string | null; reason: string };

/** A run's line as the panel stores and streams it: numbered, so a reader resumes after the last it had. */
export type NumberedRunLine = RunLine & { seq: number };

const str = (value: unknown, fallback = ""): string => (typeof value === "string" ? value : fallback);

/**
 * Hermes 0.21's tool-search bridge tools that only look tools up (tools/tool_search.py): bookkeeping, not work on
 * the page, so the panel lists no call of theirs. A `tool_call` reaches the panel under the tool it ran (Hermes's
 * activity feed names the unwrapped tool).
 */
const TOOL_LOOKUPS = new Set(["tool_search", "tool_describe"]);

/** One Hermes event payload → what the panel shows (null: nothing to show, e.g. reasoning, or an event this version does not know). */
export function toAskEvent(payload: unknown): AskEvent | null {
  if (typeof payload !== "object" || payload === null) return null;
  const p = payload as Record<string, unknown>;
  if ((p.event === "tool.started" || p.event === "tool.completed") && TOOL_LOOKUPS.has(str(p.tool))) return null;
  switch (p.event) {
    case "message.delta":
      return typeof p.delta === "string" && p.delta !== "" ? { type: "delta", text: p.delta } : null;
    case "tool.started":
      return {
        type: "tool.started",
        tool: str(p.tool, "?"),
        preview: typeof p.preview === "string" ? p.preview : null,
      };
    case "tool.completed":
      return {
        type: "tool.completed",
        tool: str(p.tool, "?"),
        durationSeconds: typeof p.duration === "number" && Number.isFinite(p.duration) ? p.duration : 0,
        error: p.error === true,
      };
    case "approval.request":
      return {
        type: "approval.request",
        description: str(p.description, "Hermes asks before it goes on"),
        command: typeof p.command === "string" ? p.command : null,
        choices: Array.isArray(p.choices)
          ? p.choices.filter((c): c is string => typeof c === "string")
          : ["once", "deny"],
        requestId: typeof p.request_id === "string" ? p.request_id : null,
      };
    case "approval.responded":
      return { type: "approval.responded", choice: str(p.choice) };
    case "run.completed":
      return { type: "completed", output: str(p.output) };
    case "run.failed":
      return { type: "failed", message: str(p.error, "the run failed") };
    case "run.cancelled":
      return { type: "cancelled" };
    // 0.21.3's error here is its own boilerplate ("Gateway shutdown interrupted the run."): the panel says what
    // happened and what to do instead.
    case "run.interrupted":
      return { type: "interrupted", message: INTERRUPTED_MESSAGE };
    // Hermes 0.21's `run.steered` says only that words were taken in (`accepted: true`, not the words): the panel
    // shows the person's words itself once the steer is accepted. `message.interim` (text a model says before it
    // calls tools) reaches the person through the final answer too: shown once, not twice.
    default:
      return null;
  }
}

/** What the panel says of a run Hermes 0.21 reports `interrupted`. */
export const INTERRUPTED_MESSAGE =
  "Hermes restarted while answering, so this run stopped (Hermes reports it interrupted). Ask again to go on.";

/** A run's events as the panel shows them; ends after `closed` (or when Hermes hangs up without it). */
export async function* askEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<AskEvent> {
  for await (const item of parseSse(body)) {
    if (item.kind === "comment") {
      if (item.text === "stream closed") {
        yield { type: "closed" };
        return;
      }
      continue; // keepalive
    }
    let payload: unknown;
    try {
      payload = JSON.parse(item.data);
    } catch {
      continue;
    }
    const event = toAskEvent(payload);
    if (event) yield event;
  }
}

/** Hermes could not be reached at all (refused, reset, timed out, DNS). */
export class HermesUnreachable extends Error {
  constructor(readonly url: string) {
    super(`Hermes does not answer at ${url}: is \`hermes gateway run\` running with API_SERVER_ENABLED=true?`);
    this.name = "HermesUnreachable";
  }
}

/** Hermes answered, but not with what was asked (wrong key, busy, unknown run…). */
export class HermesRefused extends Error {
  constructor(
    readonly status: number,
    readonly hermesMessage: string,
    readonly hermesCode: string | null,
  ) {
    super(`Hermes answered ${status}: ${hermesMessage}`);
    this.name = "HermesRefused";
  }
}

/** What this Hermes says it supports (`GET /v1/capabilities`; a Hermes before 0.21 has no such route). */
export interface HermesFeatures {
  /** `Idempotency-Key` on `POST /v1/runs`, and the conversation loaded from `session_id`. */
  runsIdempotency: boolean;
}

export const NO_FEATURES: HermesFeatures = { runsIdempotency: false };

export interface StartRunInput {
  input: string;
  /** Sent as `Idempotency-Key` (only to a Hermes whose capabilities say `runs_idempotency`): a retried start is the same run. */
  idempotencyKey?: string;
  instructions: string;
  sessionId: string;
  /** Earlier turns of this conversation, as Hermes keeps them (role + text). */
  conversationHistory?: { role: string; content: string }[];
}

export type ApprovalChoice = "once" | "session" | "always" | "deny";

/** One toolset as `GET /v1/toolsets` reports it. */
export interface HermesToolset {
  name: string;
  enabled: boolean;
  tools: string[];
}

export interface HermesClientOptions {
  url: string;
  apiKey: string;
  /** For everything but the event stream (which lasts as long as the run). */
  timeoutMs?: number;
  fetch?: typeof fetch;
}

/** How long a message from Hermes may be in the panel: Hermes's texts are short; a proxy's HTML page is not. */
const MAX_MESSAGE = 300;

export class HermesClient {
  private readonly fetchImpl: typeof fetch;
  private readonly timeoutMs: number;

  constructor(private readonly options: HermesClientOptions) {
    this.fetchImpl = options.fetch ?? fetch;
    this.timeoutMs = options.timeoutMs ?? 15_000;
  }

  private async request(
    method: string,
    path: string,
    body?: unknown,
    init: { signal?: AbortSignal; stream?: boolean; headers?: Record<string, string> } = {},
  ): Promise<Response> {
    const signal = init.signal ?? (init.stream ? undefined : AbortSignal.timeout(this.timeoutMs));
    let response: Response;
    try {
      response = await this.fetchImpl(`${this.options.url}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${this.options.apiKey}`,
          accept: init.stream ? "text/event-stream" : "application/json",
          ...(body === undefined ? {} : { "content-type": "application/json" }),
          ...init.headers,
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal,
        // Next.js's fetch caches GETs unless told not to; Node's own fetch has no cache to turn off.
        ...({ cache: "no-store" } as object),
      });
    } catch {
      throw new HermesUnreachable(this.options.url);
    }
    if (!response.ok) throw await refusal(response);
    return response;
  }

  /** POST /v1/runs: Hermes starts the run and answers at once (202). */
  async startRun(run: StartRunInput): Promise<{ runId: string }> {
    const body: Record<string, unknown> = {
      input: run.input,
      instructions: run.instructions,
      session_id: run.sessionId,
    };
    if (run.conversationHistory?.length) body.conversation_history = run.conversationHistory;
    const headers = run.idempotencyKey ? { "idempotency-key": run.idempotencyKey } : undefined;
    const answer = (await (await this.request("POST", "/v1/runs", body, { headers })).json().catch(() => null)) as {
      run_id?: unknown;
    } | null;
    if (typeof answer?.run_id !== "string" || !/^[\w-]{1,128}$/.test(answer.run_id))
      throw new HermesRefused(502, "Hermes started a run but did not name it", null);
    return { runId: answer.run_id };
  }

  /** GET /v1/capabilities: what this Hermes supports; 404 (0.18–0.19) supports none of it. */
  async capabilities(): Promise<HermesFeatures> {
    let response: Response;
    try {
      response = await this.request("GET", "/v1/capabilities");
    } catch (error) {
      if (error instanceof HermesRefused && (error.status === 404 || error.status === 405)) return NO_FEATURES;
      throw error;
    }
    const answer = (await response.json().catch(() => null)) as { features?: Record<string, unknown> } | null;
    // 0.21.3 describes it as an object (api_server_runs.py `_idempotency_capabilities`: supported, durable,
    // retention_seconds), not as a flag: only `supported: true` says a key is honoured.
    const idempotency = answer?.features?.runs_idempotency as { supported?: unknown } | undefined;
    return { runsIdempotency: idempotency?.supported === true };
  }

  /** GET /health: Hermes answers, and with which version (no key needed). */
  async health(): Promise<{ version: string | null }> {
    const answer = (await (await this.request("GET", "/health")).json().catch(() => null)) as Record<
      string,
      unknown
    > | null;
    return { version: typeof answer?.version === "string" ? answer.version : null };
  }

  /** GET /v1/toolsets: the toolsets Hermes's API server gives its runs (needs the key). */
  async toolsets(): Promise<HermesToolset[]> {
    const answer = (await (await this.request("GET", "/v1/toolsets")).json().catch(() => null)) as {
      data?: unknown;
    } | null;
    if (!Array.isArray(answer?.data)) throw new HermesRefused(502, "Hermes's toolset report is not a list", null);
    return answer.data.flatMap((entry: Record<string, unknown>) =>
      typeof entry?.name === "string"
        ? [
            {
              name: entry.name,
              enabled: entry.enabled === true,
              tools: Array.isArray(entry.tools) ? entry.tools.filter((t): t is string => typeof t === "string") : [],
            },
          ]
        : [],
    );
  }

  /** GET /v1/runs/{id}/events: the run's events until it is over. */
  async events(runId: string, signal?: AbortSignal): Promise<AsyncGenerator<AskEvent>> {
    const response = await this.request("GET", `/v1/runs/${encodeURIComponent(runId)}/events`, undefined, {
      signal,
      stream: true,
    });
    if (!response.body) throw new HermesRefused(502, "Hermes sent no event stream", null);
    return askEvents(response.body);
  }

  /** POST /v1/runs/{id}/approval */
  async answerApproval(runId: string, choice: ApprovalChoice, requestId?: string | null): Promise<void> {
    await this.request("POST", `/v1/runs/${encodeURIComponent(runId)}/approval`, {
      choice,
      ...(requestId ? { request_id: requestId } : {}),
    });
  }

  /**
   * POST /v1/runs/{id}/stop: `stopping`, or (Hermes 0.21) the status of a run already over. A run this Hermes
   * process does not run (409 `run_not_active`, e.g. after a restart) and one it no longer knows (404) are `ended`.
   */
  async stop(runId: string): Promise<{ status: string }> {
    try {
      const answer = (await (
        await this.request("POST", `/v1/runs/${encodeURIComponent(runId)}/stop`, {})
      )
        .json()
        .catch(() => null)) as { status?: unknown } | null;
      return { status: str(answer?.status, "stopping") };
    } catch (error) {
      if (
        error instanceof HermesRefused &&
        (error.status === 404 || (error.status === 409 && error.hermesCode === "run_not_active"))
      )
        return { status: "ended" };
      throw error;
    }
  }

  /** POST /v1/runs/{id}/steer (Hermes 0.21): the person's words added to what the live run is doing. */
  async steer(runId: string, input: string): Promise<void> {
    await this.request("POST", `/v1/runs/${encodeURIComponent(runId)}/steer`, { input });
  }

  /** GET /v1/runs/{id}: Hermes's word on the run (queued, running, waiting_for_approval, completed, failed, cancelled…). */
  async status(runId: string): Promise<{ status: string; error: string | null; output: string | null }> {
    const answer = (await (
      await this.request("GET", `/v1/runs/${encodeURIComponent(runId)}`)
    )
      .json()
      .catch(() => null)) as Record<string, unknown> | null;
    return {
      status: str(answer?.status, "unknown"),
      error: typeof answer?.error === "string" ? answer.error : null,
      output: typeof answer?.output === "string" ? answer.output : null,
    };
  }

  /**
   * The conversation so far, from Hermes's own session store (GET /api/sessions/{id}/messages): `/v1/runs`
   * does not load it by session id, so a follow-up question hands it back as `conversation_history`.
   * Only the person's and Hermes's text turns; an unknown session is an empty history.
   */
  async conversation(sessionId: string): Promise<{ role: string; content: string }[]> {
    let response: Response;
    try {
      response = await this.request("GET", `/api/sessions/${encodeURIComponent(sessionId)}/messages`);
    } catch (error) {
      if (error instanceof HermesRefused && error.status === 404) return [];
      throw error;
    }
    const answer = (await response.json().catch(() => null)) as { data?: unknown } | null;
    const messages = Array.isArray(answer?.data) ? answer.data : [];
    return messages.flatMap((m: { role?: unknown; content?: unknown }) =>
      (m.role === "user" || m.role === "assistant") && typeof m.content === "string" && m.content !== ""
        ? [{ role: m.role, content: m.content }]
        : [],
    );
  }
}

async function refusal(response: Response): Promise<HermesRefused> {
  const text = await response.text().catch(() => "");
  let message = `HTTP ${response.status}`;
  let code: string | null = null;
  try {
    const parsed = JSON.parse(text) as { error?: { message?: unknown; code?: unknown } };
    if (typeof parsed.error?.message === "string") message = parsed.error.message.slice(0, MAX_MESSAGE);
    if (typeof parsed.error?.code === "string") code = parsed.error.code;
  } catch {
    // not Hermes's JSON (a proxy's page): the status says enough
  }
  return new HermesRefused(response.status, message, code);
}
