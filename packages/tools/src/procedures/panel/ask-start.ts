import { z } from "zod";
import { askInstructions, askSessionId, isAskSessionOf } from "./ask";
import { PageRefSchema, panelProcedure, requirePage } from "./panel-procedure";
import { AppError } from "../../app-error";

export const AskStartInput = PageRefSchema.extend({
  /** The conversation to continue; absent: a new one. */
  sessionId: z.string().max(256).optional(),
});

/**
 * panel.ask.start — may the signed-in person ask Hermes to work on this page, and with what?
 * Only a person who may write the page asks (a viewer's box is disabled: a run's writes would
 * be made on their behalf). The panel's server then starts the run with what this returns;
 * the router never calls Hermes, and the browser never sees Hermes's key.
 */
export const askStart = panelProcedure.input(AskStartInput).mutation(async ({ ctx, input }) => {
  const { page, workspace } = await requirePage(ctx, input, "page_write");
  if (input.sessionId !== undefined && !isAskSessionOf(input.sessionId, page.id)) {
    throw new AppError("mnote_tool_invalid_input", "that conversation is not about this page; start a new one");
  }
  return {
    sessionId: input.sessionId ?? askSessionId(page.id),
    instructions: askInstructions({
      workspaceId: workspace.id,
      documentId: page.id,
      title: page.title,
      revision: page.revision,
      workspaceName: workspace.name,
    }),
    revision: page.revision,
    userId: ctx.token.userId,
  };
});
