import { LIMITS, storable } from "@mnote/contract";
import { RUN_READINESS_TTL_MS, startAskRun } from "@mnote/hermes-runs";
import { z } from "zod";
import { AppError } from "../../app-error";
import { ASK_HERMES_UNAVAILABLE, hermesRefusal, personHelp, pumpAskRun, requireHermes } from "../../panel/hermes";
import { panelProcedure } from "../../panel/panel-procedure";
import { recordAskRun } from "./ask-record";
import { replayAsk, StartKeySchema } from "./ask-replay";
import { startAsk } from "./ask-start";

/** The person's words: a question, not a document (Hermes reads the page with its tools). One limit, here. */
export const AskQuestionSchema = storable(z.string()).trim().min(1, "ask something").max(LIMITS.askQuestionChars);

export const HermesAskInput = z.object({
  workspaceId: storable(z.string()).min(1).max(128),
  documentId: storable(z.string()).min(1).max(128),
  input: AskQuestionSchema,
  /** The conversation to continue; absent: a new one. */
  sessionId: storable(z.string()).max(256).optional(),
  /** One per question the person sends: a retried start names the same run (and Hermes's Idempotency-Key). */
  startKey: StartKeySchema.optional(),
  /** Asked from a comment thread of the page: its id (the router quotes the thread to Hermes as data). */
  threadId: storable(z.string()).min(1).max(128).optional(),
});

/** A run the panel started (revision null: a retried start, answered from the run it started). */
export interface StartedRun {
  runId: string;
  sessionId: string;
  revision: number | null;
}

/**
 * panel.hermes.ask — ask Hermes one question about a page as the signed-in person: the first turn of a conversation
 * or the next one (`sessionId`); "Tell Hermes" sends a rejection's reason through it too. Who may ask, and about
 * what, is `panel.ask.start`'s rule; the question goes to Hermes with the panel's key (never to the database), the
 * run is recorded (`panel.ask.record`'s rule) and its events are read into the run lines from then on.
 */
export const hermesAsk = panelProcedure.input(HermesAskInput).mutation(async ({ ctx, input }): Promise<StartedRun> => {
  const hermes = requireHermes(ctx);
  const { workspaceId, documentId, sessionId, startKey, threadId } = input;
  if (startKey) {
    // A retried start (a double click, a lost answer): the run this key started, if it is this question's.
    const again = await replayAsk(ctx, { workspaceId, documentId, sessionId, startKey });
    if (again) return { ...again, revision: null };
  }
  const started = await startAsk(ctx, { workspaceId, documentId, sessionId, threadId }, startKey);
  const readiness = await hermes.readiness(RUN_READINESS_TTL_MS);
  if (!readiness.connected)
    throw new AppError("mnote_tool_unavailable", personHelp(ctx, readiness) ?? ASK_HERMES_UNAVAILABLE);
  try {
    const { runId } = await startAskRun({
      hermes: hermes.client,
      records: { record: (run) => recordAskRun(ctx, run) },
      asked: started,
      input: input.input,
      followUp: sessionId !== undefined,
      startKey,
      features: readiness.features,
    });
    void pumpAskRun(ctx, hermes, runId);
    return { runId, sessionId: started.sessionId, revision: started.revision };
  } catch (error) {
    // The router's refusal to record the run (the page lost meanwhile), or Hermes's failure.
    throw hermesRefusal(ctx, error);
  }
});
