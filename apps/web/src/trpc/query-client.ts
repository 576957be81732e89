import { defaultShouldDehydrateQuery, QueryClient } from "@tanstack/react-query";

/**
 * The panel's query defaults, one place for the server (prefetch, trpc/server.tsx) and the browser
 * (trpc/react.tsx). Data is kept fresh by push (panel.page.changes invalidates it), so a query need not
 * refetch on its own: `staleTime` only keeps the browser from fetching again what the server just rendered.
 */
export function makeQueryClient() {
  return new QueryClient({
    defaultOptions: {
      queries: { staleTime: 30_000, refetchOnWindowFocus: true, retry: 1 },
      // The server sends what it prefetched, settled or still pending, with the HTML (create-t3-turbo's pattern).
      dehydrate: {
        shouldDehydrateQuery: (query) => defaultShouldDehydrateQuery(query) || query.state.status === "pending",
        shouldRedactErrors: () => false,
      },
    },
  });
}
