import type { HermesClient } from "./client";

/** What the router answered `panel.ask.start` with, and the page the run is about: what a run starts from. */
export interface AskedRun {
  sessionId: string;
  userId: string;
  workspaceId: string;
  documentId: string;
  /** The router's instructions for Hermes (which page, which tools): never the person's words. */
  instructions: string;
}

/** Where a started run is recorded, so any panel instance may follow, stop and answer it (`kernel.ask` is one). */
export interface RunRecords {
  recordRun(run: AskedRunRecord): Promise<void>;
  findRunByKey(userId: string, startKey: string): Promise<{ runId: string } | null>;
}

type AskedRunRecord = Omit<AskedRun, "instructions"> & { runId: string; startKey: string | null };

/**
 * Starts one run in Hermes and records it (ids and times only: the question goes to Hermes, never to the
 * database). A follow-up hands Hermes the conversation it keeps (`/v1/runs` does not load it by session id).
 * A start retried with the same key while the first is being recorded answers the run that stands.
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
  try {
    await records.recordRun({
      runId,
      sessionId: asked.sessionId,
      userId: asked.userId,
      workspaceId: asked.workspaceId,
      documentId: asked.documentId,
      startKey: startKey ?? null,
    });
  } catch (error) {
    // The same key twice at once: Hermes ≥ 0.21 started one run; the record that stands names it.
    const again = startKey ? await records.findRunByKey(asked.userId, startKey) : null;
    if (again) return { runId: again.runId };
    throw error;
  }
  return { runId };
}
