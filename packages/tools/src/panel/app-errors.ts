import { AppError, isAppError, toTRPCError } from "../app-error";
import { middleware } from "../trpc";

/**
 * The panel's one mapping of errors, outermost on every panel procedure: a rule's `AppError` (and tRPC's own input
 * refusal) leaves as the tRPC error for its contract code; anything else (in practice the database gone away) is
 * logged and reaches the browser as 503 "mnote is unavailable; retry later", as the tools' envelope says it
 * (`middleware/answer-and-audit.ts`), never as a 500 carrying the driver's message (a host, a port, SQL).
 */
export const appErrors = middleware(async ({ ctx, next, path }) => {
  const result = await next();
  if (result.ok) return result;
  const expected = isAppError(result.error) || result.error.code !== "INTERNAL_SERVER_ERROR";
  if (!expected)
    ctx.logger.error({ path, err: result.error.cause ?? result.error }, "panel procedure failed unexpectedly");
  throw toTRPCError(AppError.from(expected ? result.error : null));
});
