import type { RefusalReason } from "@mnote/tools";

/**
 * A refusal as the AppError mapping gives it (packages/tools `AppError`): a procedure's tRPC error carries it as
 * `data.appError`, a tool's failure envelope as `error`. The one way the panel says a refused call, whichever door
 * it came by: the contract's message (a conflict names the changes to resolve; decision 0030). The panel tells
 * refusals apart by `code` and `reason`, never by their words.
 */
export type Refusal = { code: string; message: string; reason?: RefusalReason };

/** A procedure's error as its AppError (the router's `errorFormatter` puts it in `data.appError`). */
export const refusalOf = (error: { message: string; data?: { appError?: Refusal } | null }): Refusal =>
  error.data?.appError ?? { code: "mnote_tool_unavailable", message: error.message };
