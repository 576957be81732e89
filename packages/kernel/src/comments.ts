/**
 * Comment threads (decision 0040): what `comment.create` and `comment.thread.setResolved` write inside the write
 * transaction, and how a page's threads are read. A thread hangs on a block by id and never on a position, so the
 * page's own writes never touch it; a thread whose block is gone is read as detached, and a revert that brings the
 * block back attaches it again.
 */
import { type Block, LIMITS } from "@mnote/contract";
import { newId } from "./ids";
import type { SqlExecutor } from "./sql/driver";
import type {
  CommentAnchor,
  CommentAuthorRecord,
  CommentRecord,
  CommentThreadQuery,
  CommentThreadRecord,
  KernelCommand,
  PageRecord,
  TokenHolder,
} from "./types";

/** A comment command the page cannot take as it is (no such block, thread, quote…); the transaction rolls back. */
export class CommentRejected extends Error {}

/**
 * Why a new thread cannot anchor to `block` (undefined: not on the page), or null when it can: the one rule the dry
 * run checks and the write transaction checks again (the block may be gone between the two).
 */
export function commentAnchorProblem(block: { text: string } | undefined, anchor: CommentAnchor): string | null {
  if (!block) return `args.blockId: no block ${anchor.blockId} on this page`;
  if (anchor.quote !== null && !block.text.includes(anchor.quote))
    return `args.quote: block ${anchor.blockId} does not contain the quoted text`;
  return null;
}

/** Why a reply cannot go into `thread` (null: not on this page), or null when it can. */
export function commentReplyProblem(
  thread: { documentId: string; commentCount: number } | null,
  documentId: string,
  threadId: string,
): string | null {
  if (!thread || thread.documentId !== documentId) return `args.threadId: no thread ${threadId} on this page`;
  if (thread.commentCount >= LIMITS.commentsPerThread)
    return `args.threadId: the thread already holds ${LIMITS.commentsPerThread} comments; start a new one`;
  return null;
}

/** What a comment command answers the write transaction: comments never change the page or its revision. */
interface AppliedComment {
  bumpsRevision: false;
  result: Record<string, unknown>;
  undo: null;
}

interface CommandContext {
  commandId: string;
  actorId: string;
  holder: TokenHolder | null;
  tokenId: string | null;
  now: string;
}

export async function applyCommentCommand(
  tx: SqlExecutor,
  page: PageRecord,
  command: Extract<KernelCommand, { name: "comment.create" | "comment.thread.setResolved" }>,
  context: CommandContext,
): Promise<AppliedComment> {
  if (command.name === "comment.thread.setResolved") return setResolved(tx, page, command, context);
  let threadId: string;
  let seq: number;
  if ("threadId" in command.anchor) {
    threadId = command.anchor.threadId;
    const thread = await threadFacts(tx, threadId);
    const problem = commentReplyProblem(thread, page.id, threadId);
    if (problem) throw new CommentRejected(problem);
    seq = thread!.commentCount + 1;
    // A reply reopens a resolved thread: someone is still talking about it.
    await tx.run(
      `UPDATE comment_threads SET updated_at = ?, resolved_at = NULL, resolved_by = NULL, resolved_holder = NULL,
         resolved_token_id = NULL WHERE id = ?`,
      [context.now, threadId],
    );
  } else {
    const anchor = command.anchor;
    const block = await tx.get<{ text: string }>(`SELECT text FROM blocks WHERE document_id = ? AND id = ?`, [
      page.id,
      anchor.blockId,
    ]);
    const problem = commentAnchorProblem(block, anchor);
    if (problem) throw new CommentRejected(problem);
    threadId = newId("thr");
    seq = 1;
    await tx.run(
      `INSERT INTO comment_threads (id, workspace_id, document_id, block_id, quote, created_by, command_id,
         created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [
        threadId,
        page.workspaceId,
        page.id,
        anchor.blockId,
        anchor.quote,
        context.actorId,
        context.commandId,
        context.now,
        context.now,
      ],
    );
  }
  const commentId = newId("cmt");
  await tx.run(
    `INSERT INTO comments (id, thread_id, document_id, seq, author_id, author_holder, author_token_id, body,
       command_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    [
      commentId,
      threadId,
      page.id,
      seq,
      context.actorId,
      context.holder ?? "person",
      context.tokenId,
      JSON.stringify(command.body),
      context.commandId,
      context.now,
    ],
  );
  return { bumpsRevision: false, result: { threadId, commentId }, undo: null };
}

async function setResolved(
  tx: SqlExecutor,
  page: PageRecord,
  command: Extract<KernelCommand, { name: "comment.thread.setResolved" }>,
  context: CommandContext,
): Promise<AppliedComment> {
  const thread = await tx.get<{ document_id: string; resolved_at: string | null }>(
    `SELECT document_id, resolved_at FROM comment_threads WHERE id = ?`,
    [command.threadId],
  );
  if (!thread || thread.document_id !== page.id)
    throw new CommentRejected(`args.threadId: no thread ${command.threadId} on this page`);
  // Resolving a resolved thread (two people at once) changes nothing: the thread is as both wanted.
  if ((thread.resolved_at !== null) !== command.resolved) {
    await tx.run(
      `UPDATE comment_threads SET resolved_at = ?, resolved_by = ?, resolved_holder = ?, resolved_token_id = ?,
         updated_at = ? WHERE id = ?`,
      command.resolved
        ? [context.now, context.actorId, context.holder ?? "person", context.tokenId, context.now, command.threadId]
        : [null, null, null, null, context.now, command.threadId],
    );
  }
  return { bumpsRevision: false, result: { threadId: command.threadId, resolved: command.resolved }, undo: null };
}

async function threadFacts(db: SqlExecutor, threadId: string) {
  const row = await db.get<{ document_id: string; n: number | string }>(
    `SELECT t.document_id, (SELECT COUNT(*) FROM comments c WHERE c.thread_id = t.id) AS n
     FROM comment_threads t WHERE t.id = ?`,
    [threadId],
  );
  return row ? { documentId: row.document_id, commentCount: Number(row.n) } : null;
}

/** When the page's comment threads last changed (a comment, resolve or reopen), or null when it has none. */
export async function getLatestCommentActivity(db: SqlExecutor, documentId: string): Promise<string | null> {
  const row = await db.get<{ at: string | null }>(
    `SELECT MAX(updated_at) AS at FROM comment_threads WHERE document_id = ?`,
    [documentId],
  );
  return row?.at ?? null;
}

/** A thread's page and how many comments it holds (null: no such thread): what a reply's dry run checks. */
export function getCommentThreadFacts(db: SqlExecutor, threadId: string) {
  return threadFacts(db, threadId);
}

interface ThreadRow {
  id: string;
  workspace_id: string;
  document_id: string;
  block_id: string;
  quote: string | null;
  block_present: string | null;
  resolved_at: string | null;
  resolved_by: string | null;
  resolved_holder: TokenHolder | null;
  resolved_token_id: string | null;
  created_at: string;
  updated_at: string;
}
interface CommentRow {
  id: string;
  thread_id: string;
  author_id: string;
  author_holder: TokenHolder;
  author_token_id: string | null;
  body: string;
  command_id: string;
  created_at: string;
}

/**
 * A page's threads, oldest first, each with its comments in the order they were written (one statement for the
 * threads, one for their comments). Whether a thread is detached is read from the page's blocks as they are now.
 */
export async function listCommentThreads(db: SqlExecutor, query: CommentThreadQuery): Promise<CommentThreadRecord[]> {
  const where = ["t.document_id = ?"];
  const params: (string | number)[] = [query.documentId];
  if (!query.includeResolved) where.push("t.resolved_at IS NULL");
  if (query.since !== undefined) {
    where.push("t.updated_at >= ?");
    params.push(query.since);
  }
  if (query.threadId !== undefined) {
    where.push("t.id = ?");
    params.push(query.threadId);
  }
  if (query.after) {
    where.push("(t.created_at > ? OR (t.created_at = ? AND t.id > ?))");
    params.push(query.after.createdAt, query.after.createdAt, query.after.id);
  }
  params.push(query.limit);
  const threads = await db.all<ThreadRow>(
    `SELECT t.id, t.workspace_id, t.document_id, t.block_id, t.quote, b.id AS block_present, t.resolved_at,
       t.resolved_by, t.resolved_holder, t.resolved_token_id, t.created_at, t.updated_at
     FROM comment_threads t LEFT JOIN blocks b ON b.document_id = t.document_id AND b.id = t.block_id
     WHERE ${where.join(" AND ")} ORDER BY t.created_at, t.id LIMIT ?`,
    params,
  );
  if (threads.length === 0) return [];
  const comments = await db.all<CommentRow>(
    `SELECT id, thread_id, author_id, author_holder, author_token_id, body, command_id, created_at FROM comments
     WHERE thread_id IN (${threads.map(() => "?").join(", ")}) ORDER BY thread_id, seq`,
    threads.map((t) => t.id),
  );
  const byThread = new Map<string, CommentRecord[]>();
  for (const row of comments) {
    const list = byThread.get(row.thread_id) ?? [];
    list.push({
      id: row.id,
      threadId: row.thread_id,
      author: { userId: row.author_id, holder: row.author_holder, tokenId: row.author_token_id },
      body: JSON.parse(row.body) as Block[],
      commandId: row.command_id,
      createdAt: row.created_at,
    });
    byThread.set(row.thread_id, list);
  }
  return threads.map((row) => ({
    id: row.id,
    workspaceId: row.workspace_id,
    documentId: row.document_id,
    blockId: row.block_id,
    quote: row.quote,
    detached: row.block_present === null,
    resolvedAt: row.resolved_at,
    resolvedBy: row.resolved_by ? resolvedAuthor(row) : null,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    comments: byThread.get(row.id) ?? [],
  }));
}

function resolvedAuthor(row: ThreadRow): CommentAuthorRecord {
  return { userId: row.resolved_by!, holder: row.resolved_holder ?? "person", tokenId: row.resolved_token_id };
}
