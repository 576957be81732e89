import "server-only";
import { appRouter } from "@mnote/tools";
import { dehydrate, HydrationBoundary } from "@tanstack/react-query";
import { createTRPCOptionsProxy } from "@trpc/tanstack-react-query";
import { cache } from "react";
import { requestPanelContext } from "~/server/session";
import { makeQueryClient } from "./query-client";

/** One query client per server request (React's `cache`): what a page prefetches is what it hydrates. */
export const getQueryClient = cache(makeQueryClient);

/**
 * The router's query options on the server, for prefetching: the same procedures, permission checks and
 * door (`panel`, the session cookie) as `/api/trpc`, called in process instead of over HTTP.
 */
export const trpc = createTRPCOptionsProxy({
  router: appRouter,
  queryClient: getQueryClient,
  ctx: requestPanelContext,
});

/** Sends the queries this request prefetched to the browser with the HTML; client components start from them. */
export function HydrateClient({ children }: { children: React.ReactNode }) {
  return <HydrationBoundary state={dehydrate(getQueryClient())}>{children}</HydrationBoundary>;
}
