import { z } from "zod";
import { BlockIdSchema } from "../blocks";
import { IdSchema } from "../envelope";
import { LIMITS } from "../limits";
import { storable } from "../text";
import { BaseRevisionSchema, defineTool } from "./shared";

/**
 * Either a new thread (`blockId`, optionally `quote`) or a reply (`threadId`): one flat object rather than a union,
 * because a model's arguments are one flat object (model-arguments.ts) and strict mode and Gemini keep no union at
 * the root. Exactly one of the two is named; the check below says which combination was wrong.
 */
const args = z
  .strictObject({
    blockId: BlockIdSchema.optional().describe(
      "Start a new thread on this block (its id from mnote_page_get). Leave out when replying with threadId.",
    ),
    quote: storable(z.string())
      .min(1, "quote must not be empty")
      .max(LIMITS.commentQuoteLength, `quote is longer than ${LIMITS.commentQuoteLength} characters`)
      .optional()
      .describe("With blockId: the exact span of the block's text the comment is about (copied from the block)."),
    threadId: IdSchema.optional().describe(
      "Reply in this thread (its threadId from mnote_comment_list). Leave out when starting a thread with blockId.",
    ),
    markdown: storable(z.string())
      .trim()
      .min(1, "markdown must not be empty")
      .max(LIMITS.commentLength, `markdown is longer than ${LIMITS.commentLength} characters`)
      .describe("The comment, as GitHub-flavoured Markdown (paragraphs, lists, bold, links; no tables or images)."),
    // Kept like the AI note's: a held comment is applied at the revision its proposal was made on (decision 0023).
    baseRevision: BaseRevisionSchema,
  })
  .superRefine((value, ctx) => {
    if (value.blockId === undefined && value.threadId === undefined)
      ctx.addIssue({ code: "custom", message: "name blockId (a new thread) or threadId (a reply)", path: [] });
    if (value.blockId !== undefined && value.threadId !== undefined)
      ctx.addIssue({ code: "custom", message: "name blockId or threadId, not both", path: ["threadId"] });
    if (value.quote !== undefined && value.blockId === undefined)
      ctx.addIssue({ code: "custom", message: "quote goes with blockId (a new thread)", path: ["quote"] });
  });

export const commentCreateTool = defineTool({
  name: "mnote.comment.create",
  kind: "write",
  capability: "artifact.write",
  commandName: "comment.create",
  description:
    "Comment on the page instead of editing it: start a thread on a block (blockId, optionally quote: the span of " +
    "its text you mean) or reply in a thread (threadId). Use it for questions, review remarks and anything the " +
    "people should decide; the page itself does not change. People reply in the page's panel; read their " +
    "replies with mnote_comment_list. A reply to a resolved thread reopens it. Each call with a new " +
    "idempotencyKey adds one comment.",
  args,
  result: z.object({
    commandName: z.literal("comment.create"),
    threadId: z.string().describe("The thread the comment is in (new, or the one replied to)."),
    commentId: z.string(),
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
});
