import { z } from "zod";
import { RunIdSchema } from "./ask-record";
import { panelProcedure, type PersonContext } from "../../panel/panel-procedure";

/**
 * panel.ask.lines — the signed-in person's run's lines after line `after`, and whether anyone can still follow
 * it (`live`, `silent`: its reader died, `ended`, `gone`). What `panel.hermes.events` streams, after
 * `panel.ask.check` let the reader in. Another person's run reads as one that is gone (nothing, no refusal): the
 * same answer as a run swept or never started.
 */
export const AskLinesInput = z.object({
  runId: RunIdSchema,
  after: z.number().int().min(0),
  limit: z.number().int().min(1).max(500),
});

export const askLines = panelProcedure.input(AskLinesInput).query(({ ctx, input }) => readAskRunLines(ctx, input));

/** `panel.ask.lines`'s reading, also what `panel.hermes.events` streams from. */
export async function readAskRunLines(ctx: PersonContext, input: z.infer<typeof AskLinesInput>) {
  const run = await ctx.kernel.ask.getRun(input.runId);
  if (!run || run.userId !== ctx.token.userId) return { lines: [], state: "gone" as const };
  return ctx.kernel.ask.readRun(input.runId, input.after, input.limit);
}
