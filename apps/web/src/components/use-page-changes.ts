"use client";

import { useQueryClient } from "@tanstack/react-query";
import { useSubscription } from "@trpc/tanstack-react-query";
import { useCallback, useEffect } from "react";
import { useTRPC } from "~/trpc/react";
import { panelQueriesToRefresh } from "./proposals";

/**
 * Only while the live stream is down (its server restarting, a proxy cutting it): how often the panel reads
 * everything again. When the stream is back it resumes from its last event id and says whether it missed
 * anything, so this is a safety net, not the way updates arrive.
 */
const FALLBACK_REFRESH_MS = 10_000;

/**
 * Keeps a page's panel queries current by push: panel.page.changes says "this page changed" (a proposal, an
 * audit record, a new revision) and the panel's queries are invalidated, so they read again through the
 * router with the person's permissions. A decided proposal's detail never changes again and is left cached.
 */
export function usePageChanges(pageRef: { workspaceId: string; documentId: string }, cursor: string) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const refresh = useCallback(async () => {
    const filters = panelQueriesToRefresh(trpc);
    // A query's first read may still be in flight, begun before this change: TanStack would join it instead of
    // reading again (it cancels a running read only when the query already has data). Cancel it, then read anew.
    await queryClient.cancelQueries(filters);
    await queryClient.invalidateQueries(filters);
  }, [queryClient, trpc]);
  const stream = useSubscription(
    // Started from the cursor the page was rendered at: the first event says whether anything changed since.
    trpc.panel.page.changes.subscriptionOptions(
      { ...pageRef, lastEventId: cursor },
      {
        onData: (event) => {
          if (event.data.changed) void refresh();
        },
      },
    ),
  );
  const down = stream.status === "error" || (stream.status === "connecting" && stream.error !== null);
  useEffect(() => {
    if (!down) return;
    const timer = setInterval(() => void refresh(), FALLBACK_REFRESH_MS);
    return () => clearInterval(timer);
  }, [down, refresh]);
  return stream.status;
}
