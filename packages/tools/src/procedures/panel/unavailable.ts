import { TRPCError } from "@trpc/server";
import { TOOL_ERROR_MESSAGES } from "@mnote/contract";
import { middleware } from "../../trpc";

/**
 * The panel's form of the router's rule for the unexpected (`middleware/answer-and-audit.ts`): a failure
 * that is not one of the procedure's own answers (in practice the database gone away) reaches the
 * browser as 503 "mnote is unavailable; retry later", never as a 500 carrying the driver's message
 * (a host, a port, SQL).
 */
export const unexpectedIsUnavailable = middleware(async ({ next, path }) => {
  const result = await next();
  if (result.ok || result.error.code !== "INTERNAL_SERVER_ERROR") return result;
  console.error(`[mnote] panel ${path} failed unexpectedly`, result.error.cause ?? result.error);
  throw new TRPCError({ code: "SERVICE_UNAVAILABLE", message: TOOL_ERROR_MESSAGES.unavailable });
});
