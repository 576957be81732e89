"use client";

import type { AppRouter } from "@mnote/tools";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { createTRPCClient, httpBatchLink } from "@trpc/client";
import { createTRPCContext } from "@trpc/tanstack-react-query";
import { useState } from "react";
import { PANEL_MAX_BATCH_CALLS } from "./limits";

export const { TRPCProvider, useTRPC } = createTRPCContext<AppRouter>();

/** The panel's typed client: the same router the bridge calls, over /api/trpc with the session cookie. */
export function TRPCReactProvider({ children }: { children: React.ReactNode }) {
  const [queryClient] = useState(
    () => new QueryClient({ defaultOptions: { queries: { staleTime: 2_000, refetchOnWindowFocus: true, retry: 1 } } }),
  );
  const [trpcClient] = useState(() => createTRPCClient<AppRouter>({ links: [httpBatchLink({ url: "/api/trpc", maxItems: PANEL_MAX_BATCH_CALLS })] }));
  return (
    <QueryClientProvider client={queryClient}>
      <TRPCProvider trpcClient={trpcClient} queryClient={queryClient}>
        {children}
      </TRPCProvider>
    </QueryClientProvider>
  );
}
