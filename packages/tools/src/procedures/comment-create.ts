import type { ToolArgs } from "@mnote/contract";
import { commentAnchorProblem, commentReplyProblem } from "@mnote/kernel";
import { AppError } from "../app-error";
import { commentBody } from "../comment-threads";
import { type Planner, writePlan } from "../planning/write-plan";
import { runWrite } from "../run-write";
import { toolProcedure } from "../tool-procedure";

/**
 * A new thread on a block (and a quoted span of its text), or a reply in a thread of this page. The dry run checks
 * what the kernel checks again while writing (`commentAnchorProblem`, `commentReplyProblem`: one rule for both), and
 * shows the comment as a person would review it. The body's Markdown becomes blocks here, by the page's rules.
 */
export const planCreateComment: Planner<ToolArgs<"mnote.comment.create">> = async ({ kernel, input, page }) => {
  const { blockId, quote, threadId, markdown } = input.args;
  const body = commentBody(markdown);
  if (threadId !== undefined) {
    const problem = commentReplyProblem(await kernel.getCommentThreadFacts(threadId), page.id, threadId);
    if (problem) throw new AppError("mnote_tool_invalid_input", problem);
    return writePlan(
      page,
      { name: "comment.create", anchor: { threadId }, body },
      {
        plan: [`reply in thread ${threadId}`, "the page does not change"],
        diff: [{ op: "add_comment" }],
        changes: [{ kind: "add_comment", blockId: null, quote: null, threadId, markdown }],
      },
    );
  }
  const anchor = { blockId: blockId!, quote: quote ?? null };
  const [located] = await kernel.findBlocks(page.id, [anchor.blockId]);
  const problem = commentAnchorProblem(located?.block, anchor);
  if (problem) throw new AppError("mnote_tool_invalid_input", problem);
  return writePlan(
    page,
    { name: "comment.create", anchor, body },
    {
      plan: [`start a comment thread on block ${anchor.blockId}`, "the page does not change"],
      diff: [{ op: "add_comment" }],
      changes: [{ kind: "add_comment", blockId: anchor.blockId, quote: anchor.quote, threadId: null, markdown }],
    },
  );
};

/** mnote.comment.create — a comment thread on a block, or a reply in one; one comment per idempotency key. */
export const commentCreate = toolProcedure("mnote.comment.create").mutation((call, ctx) =>
  runWrite(ctx, call, planCreateComment),
);
