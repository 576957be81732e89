import { auditExport } from "../procedures/operator/audit-export";
import { createCallerFactory, router } from "../trpc";

/**
 * What an operator does with the data itself (issue 39: the audit export), a router of its own: only code that
 * already holds the database (the `mnote` CLI, a process's housekeeping) calls it in process. It is not part of
 * `appRouter`, so no door — the panel's `/api/trpc`, the bridge — serves it.
 */
export const operatorRouter = router({
  audit: router({ export: auditExport }),
});

export type OperatorRouter = typeof operatorRouter;
export const createOperatorCaller = createCallerFactory(operatorRouter);
