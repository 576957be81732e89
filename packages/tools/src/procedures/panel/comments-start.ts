import { BlockIdSchema, IdempotencyKeySchema, LIMITS, storable } from "@mnote/contract";
import { z } from "zod";
import { PageRefSchema, panelProcedure, requirePage } from "../../panel/panel-procedure";
import { commentAsPerson } from "../../panel/person-comment";

export const CommentsStartInput = PageRefSchema.extend({
  blockId: BlockIdSchema,
  markdown: storable(z.string()).max(LIMITS.commentLength),
  /** One per thread the person starts (the browser makes it): a double click or a retry starts one thread. */
  key: IdempotencyKeySchema,
});

/**
 * panel.comments.start — a person starts a thread on a block of this page (issue 34: the "Comment" action on a
 * block). Who may: whoever may write the page's artifacts, decided here and again in the tool chain; the same rule
 * as replying (person-comment.ts).
 */
export const commentsStart = panelProcedure.input(CommentsStartInput).mutation(async ({ ctx, input }) => {
  const { page } = await requirePage(ctx, input, "artifact_write");
  return commentAsPerson(
    ctx,
    page,
    { blockId: input.blockId, markdown: input.markdown },
    { kind: "thread", value: input.key },
  );
});
