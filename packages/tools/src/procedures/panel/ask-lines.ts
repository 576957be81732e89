import { z } from "zod";
import { RunIdSchema } from "./ask-record";
import { panelProcedure } from "../../panel/panel-procedure";

/**
 * panel.ask.lines — the signed-in person's run's lines after line `after`, and whether anyone can still follow
 * it (`live`, `silent`: its reader died, `ended`, `gone`). What `/api/hermes/runs/{id}/events` streams, after
 * `panel.ask.check` let the reader in. Another person's run reads as one that is gone (nothing, no refusal): the
 * same answer as a run swept or never started.
 */
export const askLines = panelProcedure
  .input(
    z.object({
      runId: RunIdSchema,
      after: z.number().int().min(0),
      limit: z.number().int().min(1).max(500),
    }),
  )
  .query(async ({ ctx, input }) => {
    const run = await ctx.kernel.ask.getRun(input.runId);
    if (!run || run.userId !== ctx.token.userId) return { lines: [], state: "gone" as const };
    return ctx.kernel.ask.readRun(input.runId, input.after, input.limit);
  });
