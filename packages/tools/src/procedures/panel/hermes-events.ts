import { storable } from "@mnote/contract";
import { followRun, type NumberedRunLine } from "@mnote/hermes-runs";
import { tracked } from "@trpc/server";
import { z } from "zod";
import { AppError, isAppError, toTRPCError } from "../../app-error";
import { requireHermes } from "../../panel/hermes";
import { panelProcedure, type PersonContext } from "../../panel/panel-procedure";
import { AskRunRefSchema, checkAskRun } from "./ask-check";
import { readAskRunLines } from "./ask-lines";

export const HermesEventsInput = AskRunRefSchema.extend({
  /** The last line the reader had: it goes on after it. */
  after: z.number().int().min(0).default(0),
  /** A reader that comes back (a reload): an ended run answers only how it ended, never its text again. */
  reload: z.boolean().default(false),
  /**
   * The `seq` of the last line the client saw: tRPC fills it from the `Last-Event-ID` of a reconnecting EventSource,
   * so a stream cut mid-run (a proxy, the 5-minute bound, another instance) goes on after that line.
   */
  lastEventId: storable(z.string()).max(32).nullish(),
});

/** How often a reader looks for new lines of a live run. */
const POLL_MS = 200;

/** Waits `ms`, or less if the reader goes away. */
const waitOrAbort = (signal: AbortSignal | undefined) => (ms: number) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    }
    signal?.addEventListener("abort", done, { once: true });
  });

/**
 * panel.hermes.events — the run's lines (`NumberedRunLine`, each tracked by its `seq`) from the database, until the
 * run ends: any instance serves them, a reload reads a live run again (`reload`: an ended one answers only how it
 * ended). Only the run's asker, who may still write its page (`panel.ask.check`, before any line). The reader going
 * away stops the reading, not the run.
 */
export const hermesEvents = panelProcedure.input(HermesEventsInput).subscription(async function* (options) {
  // A stream's errors arise after the procedure's middleware returned: they are mapped here, the same way.
  try {
    yield* linesOf(options);
  } catch (error) {
    throw isAppError(error) ? toTRPCError(AppError.from(error)) : error;
  }
});

async function* linesOf({
  ctx,
  input,
  signal,
}: {
  ctx: PersonContext;
  input: z.infer<typeof HermesEventsInput>;
  signal: AbortSignal | undefined;
}) {
  const hermes = requireHermes(ctx);
  await checkAskRun(ctx, input);
  const resumedAt = input.lastEventId ? Number(input.lastEventId) : null;
  const resumed = resumedAt !== null && Number.isSafeInteger(resumedAt) && resumedAt >= 0;
  const lines = followRun({
    reader: { readRun: (runId, after, limit) => readAskRunLines(ctx, { runId, after, limit }) },
    hermes: hermes.client,
    runId: input.runId,
    after: resumed ? resumedAt : input.after,
    // A stream resumed after a line is no reload: it goes on where it was.
    reload: input.reload && !resumed,
    signal,
    wait: waitOrAbort(signal),
    pollMs: POLL_MS,
  });
  for await (const line of lines) yield tracked(String(line.seq), line satisfies NumberedRunLine);
}
