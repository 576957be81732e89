import { IdempotencyKeySchema, IdSchema, LIMITS, storable } from "@mnote/contract";
import { z } from "zod";
import { AppError } from "../../app-error";
import { callTool } from "../../call-tool";
import { panelEnvelope } from "../../panel/decisions";
import { PageRefSchema, panelProcedure, requirePage } from "../../panel/panel-procedure";

export const CommentsReplyInput = PageRefSchema.extend({
  threadId: IdSchema,
  markdown: storable(z.string()).max(LIMITS.commentLength),
  /** One per reply the person writes (the browser makes it): a double click or a retry sends one reply, not two. */
  key: IdempotencyKeySchema,
});

/**
 * panel.comments.reply — a person replies in a thread: `mnote.comment.create` through the tool chain with the
 * person's token, like any write (checked, idempotent by the browser's key, audited, traceable to its command). The
 * tool's refusal comes back as the panel's error, in the tool's words.
 */
export const commentsReply = panelProcedure.input(CommentsReplyInput).mutation(async ({ ctx, input }) => {
  const { page } = await requirePage(ctx, input, "artifact_write");
  const envelope = await callTool(ctx, "mnote.comment.create", {
    // The person's own call: their session, no agent's run or trace to keep.
    ...panelEnvelope(
      ctx.token,
      { toolName: "mnote.comment.create", runId: null, traceId: null },
      { workspaceId: page.workspaceId, documentId: page.id },
    ),
    idempotencyKey: `reply_${input.key}`.slice(0, LIMITS.idempotencyKeyLength),
    dryRun: false,
    args: { threadId: input.threadId, markdown: input.markdown },
  });
  if (!envelope.ok && envelope.error) throw new AppError(envelope.error.code, envelope.error.message);
  return { threadId: input.threadId, commandId: envelope.audit.commandId };
});
