"use client";

import type { Block } from "@mnote/contract";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { createContext, useContext, useEffect, useRef, useState } from "react";
import { useTRPC, useTRPCClient } from "~/trpc/react";
import type { PageRef, RouterOutputs } from "~/trpc/types";
import { ASK_HERMES_RUN_EVENT, startHermesRun } from "./ask-hermes";
import { BlockView } from "./blocks";
import { LoadFailed } from "./load-failed";
import { RelativeTime } from "./relative-time";

type Thread = RouterOutputs["panel"]["comments"]["list"]["threads"][number];
type Author = Thread["comments"][number]["author"];

/** What Hermes reads as the person's words when asked from a thread (the thread itself goes as quoted data). */
export const SUGGEST_FROM_THREAD = "Turn this comment thread into a suggested edit of the page.";

/** The open threads on each block, for the page's margin; and how to show one of them in the Comments tab. */
export interface CommentMargin {
  threadsOn: (blockId: string) => Thread[];
  show: (threadId: string) => void;
}
export const CommentMarginContext = createContext<CommentMargin | null>(null);

/** The page's comment threads, read once for the margin and the Comments tab (the same query: one read). */
export function usePageComments(pageRef: PageRef) {
  const trpc = useTRPC();
  return useQuery(trpc.panel.comments.list.queryOptions({ ...pageRef, includeResolved: true }));
}

/** "Hermes, for Ada" or "Ada": who wrote a comment, in words. */
export const authorText = (author: Author) =>
  author.kind === "agent" && author.forPerson ? `${author.name}, for ${author.forPerson}` : author.name;

/** In the page's margin beside a block: its open threads, each a button that opens it in the Comments tab. */
export function CommentMarker({ blockId }: { blockId: string }) {
  const margin = useContext(CommentMarginContext);
  const threads = margin?.threadsOn(blockId) ?? [];
  if (!margin || threads.length === 0) return null;
  const comments = threads.reduce((n, t) => n + t.comments.length, 0);
  const first = threads[0]!;
  return (
    <button
      type="button"
      className="comment-marker small"
      data-testid="comment-marker"
      aria-label={`${threads.length} open comment thread${threads.length > 1 ? "s" : ""} on this block (${comments} comment${comments > 1 ? "s" : ""}): show`}
      title={first.comments[0]?.markdown}
      onClick={() => margin.show(first.threadId)}
    >
      <span aria-hidden="true">💬</span> {comments}
    </button>
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
}: {
  pageRef: PageRef;
  blocks: Block[];
  canAsk: boolean;
  focusThread: string | null;
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
      {shown.length === 0 && (
        <p className="muted">No comments yet. Agents and people comment on blocks of this page.</p>
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
