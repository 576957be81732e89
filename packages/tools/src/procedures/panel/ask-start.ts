import { IdSchema, storable } from "@mnote/contract";
import { readThreadWindow } from "../../comment-threads";
import { z } from "zod";
import {
  askInstructions,
  askSessionId,
  askSessionIdForStart,
  askThreadInstructions,
  isAskSessionOf,
} from "../../panel/ask";
import { PageRefSchema, panelProcedure, type PersonContext, requirePage } from "../../panel/panel-procedure";
import { AppError } from "../../app-error";

/** Another person's conversation and one that never was look the same (decision 0021). */
export const NO_SUCH_CONVERSATION = "no such conversation of yours on this page; start a new one";

/** A question while the conversation's last run still goes on (on any panel instance). */
export const STILL_ANSWERING = "Hermes is still answering in this conversation; wait for it or stop it.";

export const AskStartInput = PageRefSchema.extend({
  /** The conversation to continue; absent: a new one. */
  sessionId: storable(z.string()).max(256).optional(),
  /** Asked from this comment thread of the page: the thread goes to Hermes as quoted data (decision 0040). */
  threadId: IdSchema.optional(),
});

/**
 * panel.ask.start — may the signed-in person ask Hermes to work on this page, and with what?
 * Only a person who may write the page asks (a viewer's box is disabled: a run's writes would
 * be made on their behalf). A new conversation is recorded as this person's, about this page:
 * every tool call of it is then checked with their rights as well as the token's (checkAskedFor),
 * and only this person may continue it. The panel's server then starts the run with what this
 * returns; the router never calls Hermes, and the browser never sees Hermes's key.
 */
export const askStart = panelProcedure.input(AskStartInput).mutation(({ ctx, input }) => startAsk(ctx, input));

/** `panel.ask.start`'s decision, also the first step of `panel.hermes.ask`. */
export async function startAsk(ctx: PersonContext, input: z.infer<typeof AskStartInput>, startKey?: string) {
  const { page, workspace } = await requirePage(ctx, input, "page_write");
  const userId = ctx.token.userId;
  let sessionId: string;
  if (input.sessionId !== undefined) {
    const known = isAskSessionOf(input.sessionId, page.id) ? await ctx.kernel.ask.getSession(input.sessionId) : null;
    if (!known || known.userId !== userId || known.workspaceId !== workspace.id)
      throw new AppError("mnote_tool_not_found", NO_SUCH_CONVERSATION);
    sessionId = known.sessionId;
    // One run of a conversation at a time: a run's calls are then the conversation's records between its start
    // and the next run's (Hermes's events carry no tool-call id, and the plugin gets no run id; decision 0021).
    const latest = await ctx.kernel.ask.latestRun(sessionId);
    if (latest && ctx.kernel.ask.isGoingOn(latest)) throw new AppError("mnote_tool_conflict", STILL_ANSWERING);
  } else {
    // A retried first question (same key) opens the same conversation again: the retry's start is then the same
    // call to Hermes, which 0.21 replays by its Idempotency-Key.
    sessionId = startKey ? askSessionIdForStart(userId, page.id, startKey) : askSessionId(page.id);
    const opened = await ctx.kernel.ask.openSession({
      sessionId,
      userId,
      workspaceId: workspace.id,
      documentId: page.id,
    });
    if (opened.userId !== userId || opened.workspaceId !== workspace.id)
      throw new AppError("mnote_tool_not_found", NO_SUCH_CONVERSATION);
  }
  let threadPart: string[] = [];
  if (input.threadId !== undefined) {
    const { threads } = await readThreadWindow(ctx.kernel, page, { includeResolved: true, threadId: input.threadId });
    if (!threads[0]) throw new AppError("mnote_tool_not_found", "no such comment thread on this page");
    threadPart = [askThreadInstructions(threads[0])];
  }
  return {
    sessionId,
    instructions: [
      askInstructions({
        workspaceId: workspace.id,
        documentId: page.id,
        title: page.title,
        revision: page.revision,
        workspaceName: workspace.name,
      }),
      ...threadPart,
    ].join("\n"),
    revision: page.revision,
    userId,
  };
}
