"use client";

import { type Block, LIMITS } from "@mnote/contract";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { createContext, useContext, useEffect, useRef, useState } from "react";
import { useTRPC, useTRPCClient } from "~/trpc/react";
import type { PageRef, RouterOutputs } from "~/trpc/types";
import { ASK_HERMES_RUN_EVENT, startHermesRun } from "./ask-hermes";
import { BlockView } from "./blocks";
import { CharactersLeft } from "./characters-left";
import { possessive } from "./labels";
import { LoadFailed } from "./load-failed";
import { RelativeTime } from "./relative-time";

type Thread = RouterOutputs["panel"]["comments"]["list"]["threads"][number];
type Author = Thread["comments"][number]["author"];

/** What Hermes reads as the person's words when asked from a thread (the thread itself goes as quoted data). */
export const SUGGEST_FROM_THREAD = "Turn this comment thread into a suggested edit of the page.";

/**
 * The open threads on each block, for the page's margin; how to show one of them in the Comments tab; and, for a
 * person the server lets comment (`mayReply`: who may write the page's artifacts), how to start a thread on a block.
 */
export interface CommentMargin {
  threadsOn: (blockId: string) => Thread[];
  show: (threadId: string) => void;
  mayComment: boolean;
  startOn: (blockId: string) => void;
}
export const CommentMarginContext = createContext<CommentMargin | null>(null);

/** The page's comment threads, read once for the margin and the Comments tab (the same query: one read). */
export function usePageComments(pageRef: PageRef) {
  const trpc = useTRPC();
  return useQuery(trpc.panel.comments.list.queryOptions({ ...pageRef, includeResolved: true }));
}

/**
 * "Ada’s agent “Hermes”" or "Ada": who wrote a comment, in the glossary's words — an agent is named as its person's,
 * its token's label after it, never as if the label were a person (issue 36).
 */
export const authorText = (author: Author) =>
  author.kind === "agent" && author.forPerson
    ? `${possessive(author.forPerson)} agent${author.name ? ` “${author.name}”` : ""}`
    : author.name;

/** A block's text in a label: its first words, never an id. */
const blockWords = (block: Pick<Block, "text"> | undefined) => {
  const text = (block?.text ?? "").trim();
  return text.length > 60 ? `${text.slice(0, 60)}…` : text || "this block";
};

/**
 * In the page's margin beside a block: its open threads, a button that opens them in the Comments tab; and, for a
 * person who may comment, "Comment" (shown on hover or focus) to start a thread on the block (issue 34).
 */
export function CommentMarker({ block }: { block: Block }) {
  const margin = useContext(CommentMarginContext);
  if (!margin) return null;
  const threads = margin.threadsOn(block.id);
  const comments = threads.reduce((n, t) => n + t.comments.length, 0);
  const first = threads[0];
  return (
    <span className="comment-margin">
      {first && (
        <button
          type="button"
          className="comment-marker small"
          data-testid="comment-marker"
          aria-label={`${threads.length} open comment thread${threads.length > 1 ? "s" : ""} on this block (${comments} comment${comments > 1 ? "s" : ""}): show`}
          title={first.comments[0]?.markdown}
          onClick={() => margin.show(first.threadId)}
        >
          {comments} comment{comments > 1 ? "s" : ""}
        </button>
      )}
      {margin.mayComment && (
        <button
          type="button"
          className="comment-add small link"
          data-testid="comment-add"
          aria-label={`Comment on “${blockWords(block)}”`}
          onClick={() => margin.startOn(block.id)}
        >
          Comment
        </button>
      )}
    </span>
  );
}

/**
 * Start a thread on a block: the person's Markdown, counted down to the contract's limit and refused past it before
 * sending; the server decides who may (panel.comments.start) and the thread reaches every open panel by push.
 */
function NewThread({
  pageRef,
  block,
  onDone,
}: {
  pageRef: PageRef;
  block: Block | undefined;
  onDone: (threadId: string | null) => void;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [draft, setDraft] = useState("");
  // One key per thread being written: a double click or a retry starts one thread.
  const key = useRef<string | null>(null);
  const box = useRef<HTMLTextAreaElement>(null);
  useEffect(() => box.current?.focus(), []);
  const start = useMutation(
    trpc.panel.comments.start.mutationOptions({
      onSuccess: async (answer) => {
        await queryClient.invalidateQueries({ queryKey: trpc.panel.comments.list.pathKey() });
        onDone(answer.threadId);
      },
    }),
  );
  if (!block) return null;
  const used = draft.trim().length;
  const over = used > LIMITS.commentLength;
  return (
    <form
      className="card new-thread"
      aria-label={`New comment on “${blockWords(block)}”`}
      data-testid="new-thread"
      onSubmit={(event) => {
        event.preventDefault();
        if (!draft.trim() || over || start.isPending) return box.current?.focus();
        start.mutate({
          ...pageRef,
          blockId: block.id,
          markdown: draft,
          key: (key.current ??= crypto.randomUUID()),
        });
      }}
      onKeyDown={(event) => {
        if (event.key === "Escape") {
          event.preventDefault();
          onDone(null);
        }
      }}
    >
      <p className="thread-anchor muted">On “{blockWords(block)}”</p>
      <label htmlFor="new-thread-text" className="sr-only">
        Your comment
      </label>
      <textarea
        id="new-thread-text"
        ref={box}
        rows={3}
        value={draft}
        placeholder="Your comment (Markdown: **bold**, lists, links)"
        aria-invalid={over || undefined}
        aria-describedby="new-thread-count"
        onChange={(e) => {
          setDraft(e.target.value);
          key.current = null;
        }}
      />
      <CharactersLeft id="new-thread-count" used={used} limit={LIMITS.commentLength} />
      <div className="row">
        <button type="submit" className="small primary" disabled={!draft.trim() || start.isPending}>
          Comment
        </button>
        <button type="button" className="small" onClick={() => onDone(null)}>
          Cancel
        </button>
        {start.isError && <span role="alert"> The comment was not posted: {start.error.message}</span>}
      </div>
    </form>
  );
}

/**
 * The Comments tab: every thread of the page with where it is anchored, its comments and who wrote them. A person
 * who may (the server says: `mayReply`) replies, resolves and reopens; on a thread an agent wrote in, a person who
 * may ask Hermes can ask it to turn the thread into a suggested edit (Ask Hermes, with the thread as quoted data).
 */
export function Comments({
  pageRef,
  blocks,
  canAsk,
  focusThread,
  newThreadOn = null,
  onNewThreadDone = () => undefined,
}: {
  pageRef: PageRef;
  blocks: Block[];
  canAsk: boolean;
  focusThread: string | null;
  /** The block a person chose "Comment" on: the new thread's form opens here, focused. */
  newThreadOn?: string | null;
  /** The form closed: with the new thread's id when it was posted. */
  onNewThreadDone?: (threadId: string | null) => void;
}) {
  const comments = usePageComments(pageRef);
  const [showResolved, setShowResolved] = useState(false);
  if (comments.isError) return <LoadFailed what="the comments" query={comments} />;
  if (!comments.data) return <p className="muted">Loading comments…</p>;
  const { threads, mayReply } = comments.data;
  const open = threads.filter((t) => !t.resolved);
  const resolved = threads.filter((t) => t.resolved);
  const shown = showResolved ? [...open, ...resolved] : open;
  return (
    <div className="comments">
      <div className="row between">
        <h3>
          {open.length} open thread{open.length === 1 ? "" : "s"}
        </h3>
        {resolved.length > 0 && (
          <label className="inline">
            <input type="checkbox" checked={showResolved} onChange={(e) => setShowResolved(e.target.checked)} /> Show{" "}
            {resolved.length} resolved
          </label>
        )}
      </div>
      {newThreadOn !== null && mayReply && (
        <NewThread
          key={newThreadOn}
          pageRef={pageRef}
          block={blocks.find((b) => b.id === newThreadOn)}
          onDone={onNewThreadDone}
        />
      )}
      {shown.length === 0 && newThreadOn === null && (
        <p className="muted">
          No comments yet.{" "}
          {mayReply
            ? "Choose “Comment” beside a block of the page to start a thread."
            : "Agents and people who may edit comment on blocks of this page."}
        </p>
      )}
      <ul className="threads">
        {shown.map((thread) => (
          <ThreadCard
            key={thread.threadId}
            thread={thread}
            pageRef={pageRef}
            block={blocks.find((b) => b.id === thread.anchor.blockId)}
            mayReply={mayReply}
            canAsk={canAsk}
            focused={thread.threadId === focusThread}
          />
        ))}
      </ul>
    </div>
  );
}

function ThreadCard({
  thread,
  pageRef,
  block,
  mayReply,
  canAsk,
  focused,
}: {
  thread: Thread;
  pageRef: PageRef;
  block: Block | undefined;
  mayReply: boolean;
  canAsk: boolean;
  focused: boolean;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.panel.comments.list.pathKey() });
  const [draft, setDraft] = useState("");
  // One key per reply being written: a double click or a retry sends one reply.
  const replyKey = useRef<string | null>(null);
  const reply = useMutation(
    trpc.panel.comments.reply.mutationOptions({
      onSuccess: () => {
        replyKey.current = null;
        setDraft("");
        void refresh();
      },
    }),
  );
  const setResolved = useMutation(trpc.panel.comments.setResolved.mutationOptions({ onSuccess: () => void refresh() }));
  const client = useTRPCClient();
  const [asking, setAsking] = useState<"idle" | "asking" | "asked">("idle");
  const [askFailure, setAskFailure] = useState<string | null>(null);
  const askKey = useRef<string | null>(null);
  const card = useRef<HTMLLIElement>(null);
  useEffect(() => {
    if (focused) card.current?.focus();
  }, [focused]);

  const askHermes = async () => {
    setAsking("asking");
    setAskFailure(null);
    const answer = await startHermesRun(client, {
      ...pageRef,
      input: SUGGEST_FROM_THREAD,
      threadId: thread.threadId,
      startKey: (askKey.current ??= crypto.randomUUID()),
    });
    if ("error" in answer) {
      setAskFailure(answer.error);
      return setAsking("idle");
    }
    window.dispatchEvent(new CustomEvent(ASK_HERMES_RUN_EVENT, { detail: answer.started }));
    setAsking("asked");
  };
  const byAgent = thread.comments.some((c) => c.author.kind === "agent");
  const quote = thread.anchor.quote;
  return (
    <li
      ref={card}
      className={`card thread${focused ? " current" : ""}${thread.resolved ? " resolved" : ""}`}
      data-testid="comment-thread"
      data-resolved={thread.resolved}
      tabIndex={-1}
      aria-label={`Comment thread${quote ? ` on “${quote}”` : ""}`}
    >
      <p className="thread-anchor muted">
        {thread.anchor.detached ? (
          <span className="badge warn">Its block was deleted</span>
        ) : quote ? (
          <>
            On <q>{quote}</q>
          </>
        ) : (
          <>On “{(block?.text ?? "").slice(0, 80) || "a block"}”</>
        )}
        {thread.resolved && thread.resolvedBy && <> · resolved by {authorText(thread.resolvedBy)}</>}
      </p>
      <ol className="thread-comments">
        {thread.comments.map((comment) => (
          <li key={comment.commentId} className="thread-comment" data-author-kind={comment.author.kind}>
            <p className="comment-who">
              <strong>{authorText(comment.author)}</strong>
              {comment.author.kind === "agent" && <span className="badge info">agent</span>}{" "}
              <span className="muted">
                <RelativeTime iso={comment.createdAt} />
              </span>
            </p>
            <div className="comment-text">
              {comment.body.map((b) => (
                <BlockView key={b.id} block={b} />
              ))}
            </div>
          </li>
        ))}
      </ol>
      {mayReply && !thread.resolved && (
        <form
          className="thread-reply"
          onSubmit={(event) => {
            event.preventDefault();
            if (!draft.trim() || reply.isPending) return;
            reply.mutate({
              ...pageRef,
              threadId: thread.threadId,
              markdown: draft,
              key: (replyKey.current ??= crypto.randomUUID()),
            });
          }}
        >
          <textarea
            value={draft}
            rows={2}
            placeholder="Reply…"
            aria-label="Reply"
            onChange={(e) => {
              setDraft(e.target.value);
              replyKey.current = null;
            }}
          />
          <button type="submit" className="small" disabled={!draft.trim() || reply.isPending}>
            Reply
          </button>
          {reply.isError && <span role="alert"> The reply was not sent: {reply.error.message}</span>}
        </form>
      )}
      <div className="row thread-actions">
        {mayReply && (
          <button
            type="button"
            className="small"
            disabled={setResolved.isPending}
            onClick={() => setResolved.mutate({ ...pageRef, threadId: thread.threadId, resolved: !thread.resolved })}
          >
            {thread.resolved ? "Reopen" : "Resolve"}
          </button>
        )}
        {byAgent && canAsk && !thread.resolved && (
          <button type="button" className="small" disabled={asking !== "idle"} onClick={() => void askHermes()}>
            {asking === "asked" ? "Asked Hermes: see Ask Hermes" : "Ask Hermes to suggest this edit"}
          </button>
        )}
        {setResolved.isError && <span role="alert"> Not changed: {setResolved.error.message}</span>}
        {askFailure && <span role="alert"> Hermes was not asked: {askFailure}</span>}
      </div>
    </li>
  );
}
