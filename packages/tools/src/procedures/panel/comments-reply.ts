import { IdempotencyKeySchema, IdSchema, LIMITS, storable } from "@mnote/contract";
import { z } from "zod";
import { PageRefSchema, panelProcedure, requirePage } from "../../panel/panel-procedure";
import { commentAsPerson } from "../../panel/person-comment";

export const CommentsReplyInput = PageRefSchema.extend({
  threadId: IdSchema,
  markdown: storable(z.string()).max(LIMITS.commentLength),
  /** One per reply the person writes (the browser makes it): a double click or a retry sends one reply, not two. */
  key: IdempotencyKeySchema,
});

/** panel.comments.reply — a person replies in a thread of this page (person-comment.ts says how). */
export const commentsReply = panelProcedure.input(CommentsReplyInput).mutation(async ({ ctx, input }) => {
  const { page } = await requirePage(ctx, input, "artifact_write");
  const { commandId } = await commentAsPerson(
    ctx,
    page,
    { threadId: input.threadId, markdown: input.markdown },
    { kind: "reply", value: input.key },
  );
  return { threadId: input.threadId, commandId };
});
