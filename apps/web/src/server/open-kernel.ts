import { type SqlKernel, openKernel } from "@mnote/kernel";
import { consoleLogger, observeKernel } from "@mnote/process";
import { startHousekeeping } from "@mnote/tools";
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
      // Retention, expired records and the audit stream, as on every bridge (tools/audit-stream.ts). The run sweep
      // opens the kernel at start (instrumentation.ts), so these start with the process too; the timer does not keep
      // the process alive, and the kernel lives as long as the process, so nothing stops it.
      startHousekeeping(kernel, consoleLogger, panelEnv().housekeeping);
      return kernel;
    },
    (error: unknown) => {
      shared.__mnoteKernel = undefined;
      throw error;
    },
  );
  return shared.__mnoteKernel;
}
