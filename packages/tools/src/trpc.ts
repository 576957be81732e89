import { initTRPC } from "@trpc/server";
import { AppError } from "./app-error";
import type { ToolsContext } from "./context";

const t = initTRPC.context<ToolsContext>().create({
  // Callers get contract envelopes, never tRPC errors with stacks.
  isDev: false,
  // Every tRPC error the panel answers names its contract code and message, read by one function in the browser
  // and the Ask Hermes door alike; a stranger tRPC error (a path that does not exist) is given one the same way.
  errorFormatter({ shape, error }) {
    const appError = AppError.from(error);
    const { code, message, reason } = appError;
    return { ...shape, data: { ...shape.data, appError: { code, message, ...(reason ? { reason } : {}) } } };
  },
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
