import {
  type Block,
  BlockSchema,
  type CommentAuthor,
  type CommentThread,
  LIMITS,
  type ParsedBlockInput,
} from "@mnote/contract";
import type { CommentAuthorRecord, CommentThreadRecord, DisplayNames, PageRecord, SqlKernel } from "@mnote/kernel";
import { bodyToMarkdown } from "@mnote/markdown";
import { AppError } from "./app-error";
import { blocksOfMarkdown } from "./markdown-args";

/**
 * Comment threads as every reader gets them (decision 0040): the agent tool `mnote.comment.list` and the panel's
 * `panel.comments.list` read them here, so both see the same threads, authors and windows.
 */

/** A comment's Markdown as the blocks it is stored as: the page's Markdown rules, ids of the comment's own. */
export function commentBody(markdown: string): Block[] {
  const blocks: ParsedBlockInput[] = blocksOfMarkdown(markdown, "args.markdown");
  if (blocks.length > LIMITS.commentBlocks)
    throw new AppError("mnote_tool_invalid_input", `args.markdown: more than ${LIMITS.commentBlocks} blocks`);
  if (blocks.length === 0) throw new AppError("mnote_tool_invalid_input", "args.markdown: the comment is empty");
  return blocks.map((block, index) => BlockSchema.parse({ ...block, id: `c${index + 1}` }));
}

/** Where a window of threads ends: the last thread's position, and the filters it was read with. */
interface ThreadCursor {
  c: string;
  i: string;
  s: string | null;
  r: boolean;
}

export interface ThreadWindowQuery {
  since?: string;
  /** Only this thread of the page (the panel's Ask Hermes from a thread). */
  threadId?: string;
  includeResolved: boolean;
  cursor?: string;
}

/** A thread as a reader gets it, with each comment's stored blocks beside its Markdown (the panel draws blocks). */
export type ReadThread = Omit<CommentThread, "comments"> & {
  comments: (CommentThread["comments"][number] & { body: Block[] })[];
};

export interface ThreadWindow {
  threads: ReadThread[];
  /** The page's latest comment activity (any thread): a pure function of the page's state, so a read replays. */
  latestActivity: string | null;
  nextCursor: string | null;
}

function decodeCursor(text: string, query: ThreadWindowQuery): { createdAt: string; id: string } {
  try {
    const cursor = JSON.parse(Buffer.from(text, "base64url").toString("utf8")) as ThreadCursor;
    if (
      typeof cursor.c === "string" &&
      typeof cursor.i === "string" &&
      cursor.s === (query.since ?? null) &&
      cursor.r === query.includeResolved
    )
      return { createdAt: cursor.c, id: cursor.i };
  } catch {
    // fall through: not a cursor this tool made
  }
  throw new AppError(
    "mnote_tool_invalid_input",
    "args.cursor: not a cursor from a comment list of this page (pass nextCursor with the same since and includeResolved)",
  );
}

/** Who, by name: a person by their name; an agent by its token's name, for the person whose token it holds. */
function authorOf(names: DisplayNames, record: CommentAuthorRecord): CommentAuthor {
  const person = names.users[record.userId] ?? "a former member";
  if (record.holder !== "agent") return { kind: "person", name: person };
  const label = record.tokenId ? names.tokens[record.tokenId]?.label : undefined;
  return { kind: "agent", name: label || "Agent", forPerson: person };
}

/**
 * One window of the page's threads, oldest first: at most `commentThreadsPerWindow` threads and about the read
 * budget of JSON (always at least one thread, so a cursor always moves on). `latestActivity` is the page's newest
 * thread activity, read first: `since` counts it in (at or after), so what lands in the same millisecond comes again
 * rather than never.
 */
export async function readThreadWindow(
  kernel: SqlKernel,
  page: PageRecord,
  query: ThreadWindowQuery,
): Promise<ThreadWindow> {
  const latestActivity = await kernel.getLatestCommentActivity(page.id);
  const after = query.cursor !== undefined ? decodeCursor(query.cursor, query) : undefined;
  const records = await kernel.listCommentThreads({
    documentId: page.id,
    includeResolved: query.includeResolved,
    ...(query.since !== undefined ? { since: new Date(query.since).toISOString() } : {}),
    ...(after ? { after } : {}),
    ...(query.threadId !== undefined ? { threadId: query.threadId } : {}),
    limit: LIMITS.commentThreadsPerWindow + 1,
  });
  const authors = records.flatMap((t) => [...t.comments.map((c) => c.author), ...(t.resolvedBy ? [t.resolvedBy] : [])]);
  const names = await kernel.getDisplayNames({
    userIds: authors.map((a) => a.userId),
    tokenIds: authors.flatMap((a) => (a.tokenId ? [a.tokenId] : [])),
  });
  const threads: ReadThread[] = [];
  let used = 0;
  for (const record of records.slice(0, LIMITS.commentThreadsPerWindow)) {
    const thread = threadOf(names, record);
    const size = JSON.stringify(thread).length;
    if (threads.length > 0 && used + size > LIMITS.readBudget) break;
    threads.push(thread);
    used += size;
  }
  const last = threads.at(-1);
  const more = threads.length < records.length;
  const nextCursor =
    more && last
      ? Buffer.from(
          JSON.stringify({
            c: last.createdAt,
            i: last.threadId,
            s: query.since ?? null,
            r: query.includeResolved,
          } satisfies ThreadCursor),
        ).toString("base64url")
      : null;
  return { threads, latestActivity, nextCursor };
}

function threadOf(names: DisplayNames, record: CommentThreadRecord): ReadThread {
  return {
    threadId: record.id,
    anchor: { blockId: record.blockId, quote: record.quote, detached: record.detached },
    resolved: record.resolvedAt !== null,
    resolvedBy: record.resolvedBy ? authorOf(names, record.resolvedBy) : null,
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
    comments: record.comments.map((comment) => ({
      commentId: comment.id,
      author: authorOf(names, comment.author),
      markdown: bodyToMarkdown(comment.body),
      body: comment.body,
      createdAt: comment.createdAt,
    })),
  };
}
