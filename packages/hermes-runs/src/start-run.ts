import { type HermesClient, type HermesFeatures, NO_FEATURES } from "./client";

/** What the router answered `panel.ask.start` with: what a run starts from. */
export interface AskedRun {
  sessionId: string;
  userId: string;
  /** The router's instructions for Hermes (which page, which tools): never the person's words. */
  instructions: string;
}

/**
 * Where a started run is recorded, so any panel instance may follow, stop and answer it: the router's
 * `panel.ask.record`, which answers the run that stands when the same key was recorded twice at once.
 */
export interface RunRecords {
  record(run: { runId: string; sessionId: string; startKey?: string }): Promise<{ runId: string }>;
}

/**
 * Starts one run in Hermes and records it (ids and times only: the question goes to Hermes, never to the
 * database). Answers the run as recorded (a start retried with the same key at once: the run that stands).
 *
 * What is sent depends on what this Hermes says it supports (`features`, from `GET /v1/capabilities`):
 * - 0.21 (`runsIdempotency`): the person's key as `Idempotency-Key`, and no `conversation_history`: Hermes loads
 *   the conversation from `session_id` itself (with its tool turns), and the body of a retried start stays the
 *   same, so Hermes replays the run instead of refusing it with 409 `idempotency_key_conflict`.
 * - 0.18–0.19: no key (they ignore it; the router's `panel.ask.replay` is what recognises a retry there), and a
 *   follow-up hands Hermes the conversation it keeps (their `/v1/runs` does not load it by session id).
 */
export async function startAskRun(options: {
  hermes: HermesClient;
  records: RunRecords;
  asked: AskedRun;
  input: string;
  followUp: boolean;
  startKey?: string;
  features?: HermesFeatures;
}): Promise<{ runId: string }> {
  const { hermes, records, asked, startKey } = options;
  const features = options.features ?? NO_FEATURES;
  const conversationHistory =
    options.followUp && !features.runsIdempotency ? await hermes.conversation(asked.sessionId) : [];
  const { runId } = await hermes.startRun({
    input: options.input,
    instructions: asked.instructions,
    sessionId: asked.sessionId,
    conversationHistory,
    idempotencyKey: startKey && features.runsIdempotency ? `mnote_${asked.userId}_${startKey}` : undefined,
  });
  return records.record({ runId, sessionId: asked.sessionId, ...(startKey ? { startKey } : {}) });
}
