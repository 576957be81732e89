import type { HermesClient } from "./client";

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
 * database). A follow-up hands Hermes the conversation it keeps (`/v1/runs` does not load it by session id).
 * Answers the run as recorded (a start retried with the same key at once: the run that stands).
 */
export async function startAskRun(options: {
  hermes: HermesClient;
  records: RunRecords;
  asked: AskedRun;
  input: string;
  followUp: boolean;
  startKey?: string;
}): Promise<{ runId: string }> {
  const { hermes, records, asked, startKey } = options;
  const conversationHistory = options.followUp ? await hermes.conversation(asked.sessionId) : [];
  const { runId } = await hermes.startRun({
    input: options.input,
    instructions: asked.instructions,
    sessionId: asked.sessionId,
    conversationHistory,
    idempotencyKey: startKey ? `mnote_${asked.userId}_${startKey}` : undefined,
  });
  return records.record({ runId, sessionId: asked.sessionId, ...(startKey ? { startKey } : {}) });
}
