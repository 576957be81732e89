import { PAGE_CONTENT_IS_DATA, type ToolResult } from "@mnote/contract";
import { readThreadWindow } from "../comment-threads";
import { toolProcedure } from "../tool-procedure";

/** mnote.comment.list — the page's comment threads, oldest first, in windows (comment-threads.ts). */
export const commentList = toolProcedure("mnote.comment.list").query(async (call, ctx) => {
  const { page } = call.facts;
  const { since, includeResolved, cursor } = call.input.args;
  const window = await readThreadWindow(ctx.kernel, page, {
    includeResolved,
    ...(since !== undefined ? { since } : {}),
    ...(cursor !== undefined ? { cursor } : {}),
  });
  const result: ToolResult<"mnote.comment.list"> = {
    documentId: page.id,
    workspaceId: page.workspaceId,
    contentNotice: PAGE_CONTENT_IS_DATA,
    // The stored blocks stay with the panel: a model reads and writes comments as Markdown.
    threads: window.threads.map((thread) => ({
      ...thread,
      comments: thread.comments.map(({ body: _blocks, ...comment }) => comment),
    })),
    latestActivity: window.latestActivity,
    nextCursor: window.nextCursor,
  };
  return { kind: "read", result };
});
