import { type SqlKernel, openKernel } from "@mnote/kernel";
import { observeKernel } from "@mnote/process";
import { panelEnv } from "./env";

/**
 * No `server-only` mark here: instrumentation.ts (the run sweep) opens the kernel too, and Next refuses that
 * mark in what instrumentation imports. Route code imports `./kernel`, which carries it.
 *
 * One kernel per server process, shared by route handlers and server components
 * (kept on globalThis so Next's separate route bundles and dev reloads reuse it).
 */
const shared = globalThis as { __mnoteKernel?: Promise<SqlKernel> };

export function getKernel(): Promise<SqlKernel> {
  const { database } = panelEnv();
  // A failed open (the database down when the first request came) is forgotten, so the next
  // request tries again instead of every request failing until the panel restarts.
  shared.__mnoteKernel ??= openKernel(database.url, database.options).then(
    (kernel) => {
      // With metrics on, the database-backed gauges and the change feed's lag (docs/operations.md).
      if (panelEnv().metricsToken) observeKernel(kernel);
      return kernel;
    },
    (error: unknown) => {
      shared.__mnoteKernel = undefined;
      throw error;
    },
  );
  return shared.__mnoteKernel;
}
