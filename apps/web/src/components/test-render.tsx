import { appRouter } from "@mnote/tools";
import type { World } from "@mnote/tools/testing";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { render } from "@testing-library/react";
import { createTRPCClient, unstable_localLink } from "@trpc/client";
import type { ReactNode } from "react";
import { createPanelContext } from "~/server/context";
import { TRPCProvider } from "~/trpc/react";

/**
 * Renders a panel view against the real router and a real kernel (a test world on SQLite): the view's queries go
 * through tRPC's local link into the same procedures `/api/trpc` serves, as `token`'s person at the panel door.
 * Only HTTP is left out (its door has its own tests in reliability/).
 */
export function renderPanelView(ui: ReactNode, world: World, token: string) {
  const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  const trpcClient = panelClient(world, token);
  const rendered = render(
    <QueryClientProvider client={queryClient}>
      <TRPCProvider trpcClient={trpcClient} queryClient={queryClient}>
        {ui}
      </TRPCProvider>
    </QueryClientProvider>,
  );
  // The view's client too: a test waits for its queries to settle before it closes the world's kernel.
  return { ...rendered, queryClient };
}

/** The panel's tRPC client as `token`'s person, through tRPC's local link into the real router (the panel's context). */
export function panelClient(world: World, token: string) {
  return createTRPCClient<typeof appRouter>({
    links: [
      unstable_localLink({
        router: appRouter,
        createContext: async () =>
          createPanelContext({ kernel: world.kernel, authorization: `Bearer ${token}`, settings: undefined }),
      }),
    ],
  });
}
