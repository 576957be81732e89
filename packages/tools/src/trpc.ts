import { initTRPC } from "@trpc/server";
import type { ToolsContext } from "./context";
import type { ToolSpec } from "./tool-spec";

export interface ToolsMeta {
  tool?: ToolSpec;
}

const t = initTRPC.context<ToolsContext>().meta<ToolsMeta>().create({
  // Callers get contract envelopes, never tRPC errors with stacks.
  isDev: false,
});

export const router = t.router;
export const middleware = t.middleware;
export const publicProcedure = t.procedure;
export const createCallerFactory = t.createCallerFactory;
