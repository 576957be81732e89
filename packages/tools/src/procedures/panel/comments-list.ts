import { storable } from "@mnote/contract";
import { z } from "zod";
import { hasAccess } from "../../access";
import { readThreadWindow } from "../../comment-threads";
import { PageRefSchema, panelProcedure, requirePage } from "../../panel/panel-procedure";

export const CommentsListInput = PageRefSchema.extend({
  includeResolved: z.boolean().default(true),
  cursor: storable(z.string()).max(400).optional(),
});

/**
 * panel.comments.list — the page's comment threads as the agent tool reads them (comment-threads.ts), with the
 * stored blocks of each comment, and whether this person may reply, resolve and reopen (decided here, not in the
 * browser: whoever may write the page's artifacts, with a session that holds artifact.write).
 */
export const commentsList = panelProcedure.input(CommentsListInput).query(async ({ ctx, input }) => {
  const { page, facts } = await requirePage(ctx, input);
  const window = await readThreadWindow(ctx.kernel, page, {
    includeResolved: input.includeResolved,
    ...(input.cursor !== undefined ? { cursor: input.cursor } : {}),
  });
  const mayReply = hasAccess(facts, "artifact_write") && ctx.token.scopes.includes("artifact.write");
  return { threads: window.threads, nextCursor: window.nextCursor, mayReply };
});
