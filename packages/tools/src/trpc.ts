import { initTRPC } from "@trpc/server";
import type { ToolsContext } from "./context";
import type { ToolSpec } from "./tool-spec";

export interface ToolsMeta {
  tool?: ToolSpec;
}

const t = initTRPC
  .context<ToolsContext>()
  .meta<ToolsMeta>()
  .create({
    // Callers get contract envelopes, never tRPC errors with stacks.
    isDev: false,
    // Subscriptions (panel.page.changes) over server-sent events, decision 0017. A comment every 15 s keeps
    // proxies from closing a quiet stream, and a client that hears nothing for 40 s reconnects. A stream ends
    // after 5 minutes without an error: the EventSource reconnects through the panel's door again (session,
    // rate limit), with Last-Event-ID, so it resumes where it was.
    sse: {
      ping: { enabled: true, intervalMs: 15_000 },
      maxDurationMs: 5 * 60_000,
      client: { reconnectAfterInactivityMs: 40_000 },
    },
  });

export const router = t.router;
export const middleware = t.middleware;
export const publicProcedure = t.procedure;
export const createCallerFactory = t.createCallerFactory;
