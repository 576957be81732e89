import { storable } from "@mnote/contract";
import { z } from "zod";
import { AppError } from "../../app-error";
import { NO_SUCH_CONVERSATION } from "./ask-start";
import { StartKeySchema } from "./ask-replay";
import { panelProcedure, type PersonContext, requirePage } from "../../panel/panel-procedure";

/** Hermes's run ids as the panel accepts them (its own: `run_<hex>`). */
export const RunIdSchema = storable(z.string()).regex(/^[\w-]{1,128}$/);

/**
 * panel.ask.record — the run the panel's server just started in Hermes for this person's conversation, recorded
 * so any panel instance may follow, stop and answer it (ids and times: no text). The conversation must be the
 * person's, on a page they may still write. The same key recorded twice at once (Hermes ≥ 0.21 started one run)
 * answers the run that stands.
 */
export const AskRecordInput = z.object({
  runId: RunIdSchema,
  sessionId: storable(z.string()).max(256),
  startKey: StartKeySchema.optional(),
});

export const askRecord = panelProcedure.input(AskRecordInput).mutation(({ ctx, input }) => recordAskRun(ctx, input));

/** `panel.ask.record`'s decision, also how `panel.hermes.ask` records the run it started. */
export async function recordAskRun(ctx: PersonContext, input: z.infer<typeof AskRecordInput>) {
  const userId = ctx.token.userId;
  const session = await ctx.kernel.ask.getSession(input.sessionId);
  if (!session || session.userId !== userId) throw new AppError("mnote_tool_not_found", NO_SUCH_CONVERSATION);
  await requirePage(ctx, session, "page_write");
  try {
    await ctx.kernel.ask.recordRun({
      runId: input.runId,
      sessionId: session.sessionId,
      userId,
      workspaceId: session.workspaceId,
      documentId: session.documentId,
      startKey: input.startKey ?? null,
    });
    return { runId: input.runId };
  } catch (error) {
    const again = input.startKey ? await ctx.kernel.ask.findRunByKey(userId, input.startKey) : null;
    if (again) return { runId: again.runId };
    throw error;
  }
}
