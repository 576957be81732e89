import { storable, TOOL_ERROR_MESSAGES as M } from "@mnote/contract";
import { z } from "zod";
import { AppError } from "../../app-error";
import { AskStartInput } from "./ask-start";
import { panelProcedure, type PersonContext, requirePage } from "../../panel/panel-procedure";

/** One per question the person sends: a retried start with it names the same run. */
export const StartKeySchema = storable(z.string()).regex(/^[\w-]{8,128}$/);

/**
 * panel.ask.replay — did this person's start with this key already start a run (a double click, a lost answer)?
 * Answers that run if it is this question's (same page, same conversation), null if the key is new; the key
 * used for another question is an idempotency conflict, as for any tool call. The person must still be able to
 * write the page (as for a new start).
 */
export const AskReplayInput = AskStartInput.extend({ startKey: StartKeySchema });

export const askReplay = panelProcedure.input(AskReplayInput).query(({ ctx, input }) => replayAsk(ctx, input));

/** `panel.ask.replay`'s decision, also how `panel.hermes.ask` recognises a retried start. */
export async function replayAsk(ctx: PersonContext, input: z.infer<typeof AskReplayInput>) {
  const { page, workspace } = await requirePage(ctx, input, "page_write");
  const again = await ctx.kernel.ask.findRunByKey(ctx.token.userId, input.startKey);
  if (!again) return null;
  const same =
    again.workspaceId === workspace.id &&
    again.documentId === page.id &&
    (input.sessionId === undefined || input.sessionId === again.sessionId);
  if (!same) throw new AppError("mnote_tool_idempotency_conflict", M.idempotencyConflict);
  return { runId: again.runId, sessionId: again.sessionId };
}
