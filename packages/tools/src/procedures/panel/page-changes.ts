import { storable } from "@mnote/contract";
import type { ChangeFeed, PageChange } from "@mnote/kernel";
import { tracked } from "@trpc/server";
import { z } from "zod";
import { resolveToken } from "../../resolve-token";
import type { ToolsContext } from "../../context";
import { PageRefSchema, panelProcedure, type PersonContext, requirePage } from "../../panel/panel-procedure";
import { AppError, isAppError, toTRPCError } from "../../app-error";

/**
 * `lastEventId`: the id of the last event the client saw. tRPC fills it from the `Last-Event-ID` of a
 * reconnecting EventSource, so a panel that lost its stream learns at once whether it missed anything.
 */
export const PageChangesInputSchema = PageRefSchema.extend({ lastEventId: storable(z.string()).max(64).nullish() });

/** How long a new stream waits for the process's LISTEN connection (PostgreSQL) before it refuses; the client retries. */
const FEED_WAIT_MS = 5_000;

export interface PageChangeEvent {
  /** False only on the first event of a fresh stream: the client's data is as new as this cursor. */
  changed: boolean;
  /** What kinds of change this event covers (several changes in a burst come as one event). */
  kinds: PageChange["kind"][];
  revision: number;
}

/**
 * The page's cursor: its revision and its newest audit record. Every change the kernel announces moves one
 * of the two, so equal cursors mean the panel has nothing new to read. The page route reads it before it
 * prefetches and hands it to the stream as `lastEventId`, so a change between the first paint and the
 * stream's start is reported, not lost.
 */
export async function pageCursor(kernel: ToolsContext["kernel"], pageId: string, revision: number): Promise<string> {
  const [latest] = await kernel.listAudit({ documentId: pageId, limit: 1 });
  return `${revision}.${latest?.id ?? 0}`;
}

/** Changes to one page, waiting to be read: a burst while the reader is busy becomes one wake-up. */
class PageInbox {
  private kinds = new Set<PageChange["kind"]>();
  private lost = false;
  private wake: (() => void) | null = null;

  constructor(signal: AbortSignal | undefined) {
    signal?.addEventListener("abort", () => this.wake?.(), { once: true });
  }

  push(kind: PageChange["kind"]) {
    this.kinds.add(kind);
    this.wake?.();
  }

  /** The feed stopped hearing other instances' changes: this stream must end so the client resumes. */
  feedLost() {
    this.lost = true;
    this.wake?.();
  }

  /** The kinds that arrived since the last call; null when the stream must end (aborted or feed lost). */
  async next(signal: AbortSignal | undefined): Promise<PageChange["kind"][] | null> {
    while (this.kinds.size === 0 && !this.lost && !signal?.aborted) {
      await new Promise<void>((resolve) => (this.wake = resolve));
      this.wake = null;
    }
    if (this.lost || signal?.aborted) return null;
    const kinds = [...this.kinds];
    this.kinds.clear();
    return kinds;
  }
}

async function waitForFeed(feed: ChangeFeed, signal: AbortSignal | undefined): Promise<boolean> {
  if (feed.connected) return true;
  return new Promise<boolean>((resolve) => {
    const done = (value: boolean) => {
      clearTimeout(timer);
      stop();
      signal?.removeEventListener("abort", aborted);
      resolve(value);
    };
    const aborted = () => done(false);
    const timer = setTimeout(() => done(feed.connected), FEED_WAIT_MS);
    const stop = feed.onConnectionChange((connected) => connected && done(true));
    signal?.addEventListener("abort", aborted, { once: true });
  });
}

const unavailable = () =>
  // A code the client's subscription link retries: it reconnects (with Last-Event-ID) and resumes.
  new AppError("mnote_tool_unavailable", "live updates are reconnecting");

/**
 * panel.page.changes — "this page changed, read it again", pushed over server-sent events (decision 0017).
 * The events carry no page data: the client invalidates its queries, which go through the same permission
 * checks as ever. Every event re-checks the session and the page permission, so a revoked token or a
 * withdrawn grant ends the stream at the next change (and tRPC's `maxDurationMs` bounds a quiet one).
 */
export const pageChanges = panelProcedure.input(PageChangesInputSchema).subscription(async function* (options) {
  // A stream's errors arise after the procedure's middleware returned: they are mapped here, the same way.
  try {
    yield* changesOf(options);
  } catch (error) {
    throw isAppError(error) ? toTRPCError(AppError.from(error)) : error;
  }
});

async function* changesOf({
  ctx,
  input,
  signal,
}: {
  ctx: PersonContext;
  input: z.infer<typeof PageChangesInputSchema>;
  signal: AbortSignal | undefined;
}) {
  const ref = { workspaceId: input.workspaceId, documentId: input.documentId };
  await requirePage(ctx, ref);
  const feed = ctx.kernel.changes;
  const inbox = new PageInbox(signal);
  // Subscribe before reading the cursor: a change between the two is then both in the cursor and in the inbox
  // (one extra refetch), never in neither.
  const stopChanges = feed.subscribe((change) => {
    if (change.documentId === ref.documentId && change.workspaceId === ref.workspaceId) inbox.push(change.kind);
  });
  const stopConnection = feed.onConnectionChange((connected) => {
    if (!connected) inbox.feedLost();
  });
  try {
    if (!(await waitForFeed(feed, signal))) {
      if (signal?.aborted) return;
      throw unavailable();
    }
    const { page } = await requirePage(ctx, ref);
    let last = await pageCursor(ctx.kernel, page.id, page.revision);
    // The first event gives the client a cursor to resume from; `changed` when it resumes past a change it missed.
    const missed = input.lastEventId !== undefined && input.lastEventId !== null && input.lastEventId !== last;
    yield tracked(last, { changed: missed, kinds: [], revision: page.revision } satisfies PageChangeEvent);
    for (;;) {
      const kinds = await inbox.next(signal);
      if (kinds === null) {
        if (signal?.aborted) return;
        throw unavailable();
      }
      if (!(await resolveToken(ctx.kernel, ctx.authorization)))
        throw new AppError("mnote_tool_unauthenticated", "sign in again");
      const { page: now } = await requirePage(ctx, ref);
      const cursor = await pageCursor(ctx.kernel, now.id, now.revision);
      if (cursor === last) continue;
      last = cursor;
      yield tracked(cursor, { changed: true, kinds, revision: now.revision } satisfies PageChangeEvent);
    }
  } finally {
    stopChanges();
    stopConnection();
  }
}
