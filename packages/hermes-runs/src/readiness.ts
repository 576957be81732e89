import type { ToolErrorCode } from "@mnote/contract";
import { type HermesClient, type HermesFeatures, HermesRefused, HermesUnreachable, NO_FEATURES } from "./client";
import { checkToolsets } from "./toolsets";

/** May the panel ask Hermes now, and if not, what to change (never Hermes's URL or key). */
export interface HermesReadiness {
  /** Hermes answered, took the key, and offers a run only the allowed toolsets. */
  connected: boolean;
  /** What to change when not (null when connected). */
  help: string | null;
  version: string | null;
  /** What this Hermes supports (`GET /v1/capabilities`; none before 0.21). */
  features?: HermesFeatures;
}

/**
 * Is Hermes there (`GET /health`), does it take the panel's key, and would a run of its API server get only the
 * allowed toolsets (`GET /v1/toolsets`, decision 0021)? Each way of not being ready says what to change.
 */
export async function checkReadiness(
  client: Pick<HermesClient, "health" | "toolsets"> & Partial<Pick<HermesClient, "capabilities">>,
  allowedToolsets: readonly string[],
): Promise<HermesReadiness> {
  let version: string | null = null;
  try {
    version = (await client.health()).version;
    const verdict = checkToolsets(await client.toolsets(), allowedToolsets);
    const features = client.capabilities ? await client.capabilities() : NO_FEATURES;
    return verdict.ok
      ? { connected: true, help: null, version, features }
      : { connected: false, help: verdict.problem, version, features };
  } catch (error) {
    const help =
      error instanceof HermesUnreachable
        ? `${error.message} The box works again once it answers.`
        : error instanceof HermesRefused && error.status === 401
          ? WRONG_KEY
          : error instanceof HermesRefused && error.status === 404
            ? "Ask Hermes is off: this Hermes does not report its toolsets (GET /v1/toolsets; Hermes 0.18 or later), so the panel cannot check that a run gets only mnote's tools."
            : `Ask Hermes is off: Hermes answered ${error instanceof HermesRefused ? error.status : "oddly"} when asked for its toolsets.`;
    return { connected: false, help, version };
  }
}

const WRONG_KEY = "Hermes refused the panel's key: MNOTE_HERMES_API_KEY must equal Hermes's API_SERVER_KEY.";

/** The panel's answer to a call to Hermes that failed, in the contract's words. */
export interface HermesFailureAnswer {
  code: Extract<
    ToolErrorCode,
    "mnote_tool_unavailable" | "mnote_tool_rate_limited" | "mnote_tool_idempotency_conflict"
  >;
  message: string;
  status: number;
  headers: Record<string, string>;
}

/**
 * A failed call to Hermes as the panel answers it: unreachable or refusing the key is the gateway's fault (502),
 * Hermes busy with as many runs as it allows is the rate limit (429, retry in a second); null for an error that
 * did not come from talking to Hermes.
 */
export function hermesFailureAnswer(error: unknown): HermesFailureAnswer | null {
  if (error instanceof HermesUnreachable)
    return {
      code: "mnote_tool_unavailable",
      message: `${error.message} Nothing was sent; ask again when it is back.`,
      status: 502,
      headers: {},
    };
  if (!(error instanceof HermesRefused)) return null;
  if (error.status === 409 && error.hermesCode === "idempotency_key_conflict")
    return {
      code: "mnote_tool_idempotency_conflict",
      message:
        "Hermes already started another question under this key; send the question again as a new one (its key names one question).",
      status: 409,
      headers: {},
    };
  if (error.status === 429)
    return {
      code: "mnote_tool_rate_limited",
      message: "Hermes is busy with as many runs as it allows; try again in a moment.",
      status: 429,
      headers: { "retry-after": "1" },
    };
  return {
    code: "mnote_tool_unavailable",
    message: error.status === 401 ? WRONG_KEY : `Hermes answered ${error.status}: ${error.hermesMessage}`,
    status: 502,
    headers: {},
  };
}

/** How long a readiness check stands for the box: `connected` is never older than this (issue 19: ≤ 30 s). */
export const READINESS_TTL_MS = 10_000;
/** Before a run the check is at most this old: a config.yaml changed to offer `terminal` stops the next runs. */
export const RUN_READINESS_TTL_MS = 2_000;

/**
 * Hermes's readiness, checked at most as often as asked: one check at a time per Hermes (callers within the age
 * share it), a new one when the Hermes asked about changes. Time is the caller's clock (`now`), so a test moves it.
 */
export class ReadinessCache {
  private last: { at: number; key: string; value: Promise<HermesReadiness> } | null = null;

  constructor(private readonly now: () => number = Date.now) {}

  get(key: string, probe: () => Promise<HermesReadiness>, maxAgeMs = READINESS_TTL_MS): Promise<HermesReadiness> {
    const now = this.now();
    if (this.last && this.last.key === key && now - this.last.at < maxAgeMs) return this.last.value;
    const value = probe();
    this.last = { at: now, key, value };
    return value;
  }
}
