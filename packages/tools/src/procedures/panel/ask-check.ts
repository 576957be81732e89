import { storable } from "@mnote/contract";
import { z } from "zod";
import { AppError } from "../../app-error";
import { panelProcedure, type PersonContext, requirePage } from "../../panel/panel-procedure";

/** Another person's run and a run that never was look the same (decision 0021). */
export const NO_SUCH_RUN = "no such run of yours (it may have ended over an hour ago)";

/**
 * panel.ask.check — may the signed-in person still follow, answer or stop this run? It must be
 * theirs (recorded when it started, on whichever panel instance) and they must still be able to
 * write its page (a person demoted mid-run loses it). Asked on every later request of a run.
 */
export const AskRunRefSchema = z.object({ runId: storable(z.string()).min(1).max(128) });

export const askCheck = panelProcedure.input(AskRunRefSchema).query(({ ctx, input }) => checkAskRun(ctx, input));

/** `panel.ask.check`'s decision: every `panel.hermes.*` step of a run asks it first. */
export async function checkAskRun(ctx: PersonContext, input: z.infer<typeof AskRunRefSchema>) {
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
}
