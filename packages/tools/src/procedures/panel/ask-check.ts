import { storable } from "@mnote/contract";
import { z } from "zod";
import { AppError } from "../../app-error";
import { panelProcedure, requirePage } from "../../panel/panel-procedure";

/** Another person's run and a run that never was look the same (decision 0021). */
export const NO_SUCH_RUN = "no such run of yours (it may have ended over an hour ago)";

/**
 * panel.ask.check — may the signed-in person still follow, answer or stop this run? It must be
 * theirs (recorded when it started, on whichever panel instance) and they must still be able to
 * write its page (a person demoted mid-run loses it). Asked on every later request of a run.
 */
export const askCheck = panelProcedure
  .input(z.object({ runId: storable(z.string()).min(1).max(128) }))
  .query(async ({ ctx, input }) => {
    const run = await ctx.kernel.ask.getRun(input.runId);
    if (!run || run.userId !== ctx.token.userId) throw new AppError("mnote_tool_not_found", NO_SUCH_RUN);
    // A run whose page the person can no longer write (or read) answers as an unknown one, too.
    try {
      await requirePage(ctx, run, "page_write");
    } catch (error) {
      if (error instanceof AppError) throw new AppError("mnote_tool_not_found", NO_SUCH_RUN);
      throw error;
    }
    return run;
  });
