import { LIMITS, storable } from "@mnote/contract";
import { z } from "zod";
import { RELAYED_CHOICES, type RelayedChoice } from "./policy";

/**
 * The panel's `/api/hermes/*` door, typed once for both ends (issue 33 item 3): its paths, what each route takes
 * (the schemas the server parses with) and answers (the types the server's answers satisfy), and the browser's
 * client (`hermesDoor`). The server side is apps/web/src/server/hermes-door.ts; the run lines it streams are
 * `NumberedRunLine` (client.ts). Refusals are the contract's error shape (`DoorRefusal`).
 */
export const HERMES_DOOR_PATHS = {
  connection: "/api/hermes",
  runs: "/api/hermes/runs",
  events: (runId: string, after: number, reload: boolean) =>
    `/api/hermes/runs/${encodeURIComponent(runId)}/events?after=${after}${reload ? "&reload=1" : ""}`,
  approval: (runId: string) => `/api/hermes/runs/${encodeURIComponent(runId)}/approval`,
  stop: (runId: string) => `/api/hermes/runs/${encodeURIComponent(runId)}/stop`,
  steer: (runId: string) => `/api/hermes/runs/${encodeURIComponent(runId)}/steer`,
} as const;

/** The person's words: a question, not a document (Hermes reads the page with its tools). One limit, here. */
export const AskQuestionSchema = storable(z.string()).trim().min(1, "ask something").max(LIMITS.askQuestionChars);

/** POST /api/hermes/runs */
export const AskBodySchema = z.object({
  workspaceId: storable(z.string()).min(1).max(128),
  documentId: storable(z.string()).min(1).max(128),
  input: AskQuestionSchema,
  sessionId: storable(z.string()).max(256).optional(),
  /** Asked from a comment thread of the page: its id (the server quotes the thread to Hermes as data). */
  threadId: storable(z.string()).min(1).max(128).optional(),
  /** One per question the person sends: a retried start names the same run (and Hermes's Idempotency-Key). */
  startKey: storable(z.string())
    .regex(/^[\w-]{8,128}$/)
    .optional(),
});
export type AskBody = z.infer<typeof AskBodySchema>;

/** POST /api/hermes/runs/{runId}/approval — only these are relayed: `session`/`always` would change Hermes for every later run. */
export const ApprovalBodySchema = z.object({
  choice: z.enum(RELAYED_CHOICES),
  /** Hermes 0.21's name of the request answered (from its `approval.request`), handed back as `request_id`. */
  requestId: storable(z.string())
    .regex(/^[\w.:-]{1,128}$/)
    .optional(),
});

/** POST /api/hermes/runs/{runId}/steer — the person's words added to what the live run is doing (Hermes 0.21). */
export const SteerBodySchema = z.object({ input: AskQuestionSchema });

/** GET /api/hermes: may this panel ask Hermes now (only whether and why not: never its URL or key). */
export interface ConnectionAnswer {
  connected: boolean;
  help: string | null;
}
/** POST /api/hermes/runs → 202 (revision null: a retried start, answered from the run it started). */
export interface StartedRunAnswer {
  runId: string;
  sessionId: string;
  revision: number | null;
}
export interface ApprovalAnswer {
  runId: string;
  choice: RelayedChoice;
}
/** `ended`: the run is over, or Hermes no longer runs it (a restart: 0.21's 409 `run_not_active`). */
export interface StopAnswer {
  runId: string;
  status: "stopping" | "ended";
}
export interface SteerAnswer {
  runId: string;
}
/** Every refusal of the door: the contract's error shape. */
export interface DoorRefusal {
  error: { code: string; message: string };
}

/** What a call of the door came to: its answer, or the refusal's message (or that the panel was not reached). */
export type DoorResult<T> = { ok: true; value: T } | { ok: false; status: number; message: string };

async function call<T>(path: string, init: RequestInit = {}): Promise<DoorResult<T>> {
  let response: Response;
  try {
    // Every answer of the door says `cache-control: no-store`: no browser cache to turn off here.
    response = await fetch(path, init);
  } catch {
    return { ok: false, status: 0, message: "The panel could not be reached." };
  }
  if (!response.ok) return { ok: false, status: response.status, message: await refusalMessage(response) };
  return { ok: true, value: (await response.json()) as T };
}

/** The refusal's message, as the door wrote it. */
export async function refusalMessage(response: Response): Promise<string> {
  const body = (await response.json().catch(() => null)) as Partial<DoorRefusal> | null;
  return body?.error?.message ?? `the panel answered ${response.status}`;
}

const post = <T>(path: string, body: object) =>
  call<T>(path, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

/** The browser's client of `/api/hermes/*` (same-origin fetch; the session cookie goes with it). */
export const hermesDoor = {
  connection: () => call<ConnectionAnswer>(HERMES_DOOR_PATHS.connection),
  start: (body: AskBody) => post<StartedRunAnswer>(HERMES_DOOR_PATHS.runs, body),
  /** The run's lines as newline-delimited `NumberedRunLine`s (the response, to read as it streams). */
  events: (runId: string, after: number, reload: boolean, signal: AbortSignal) =>
    fetch(HERMES_DOOR_PATHS.events(runId, after, reload), { signal }),
  approval: (runId: string, choice: RelayedChoice, requestId?: string | null) =>
    post<ApprovalAnswer>(HERMES_DOOR_PATHS.approval(runId), { choice, ...(requestId ? { requestId } : {}) }),
  stop: (runId: string) => post<StopAnswer>(HERMES_DOOR_PATHS.stop(runId), {}),
  steer: (runId: string, input: string) => post<SteerAnswer>(HERMES_DOOR_PATHS.steer(runId), { input }),
};
