import { clipEcho, describeIssues, TOOL_ERROR_MESSAGES, type ToolErrorCode } from "@mnote/contract";
import { type TRPC_ERROR_CODE_KEY, TRPCError } from "@trpc/server";
import { ZodError } from "zod";

/**
 * The one error type of the router, tools and panel alike (documenso's `AppError` is the model). Any check or
 * procedure throws it with a contract error code and a message safe to show; it is turned into an answer in one
 * place per kind of answer: a tool's failure envelope (`middleware/answer-and-audit.ts`), a panel procedure's tRPC
 * error (`toTRPCError`, by the panel's `appErrors` middleware) carrying the same code in `data.appError` (the
 * router's `errorFormatter`). Anything else thrown is unexpected: it is logged and answered "unavailable".
 */
export class AppError extends Error {
  constructor(
    readonly code: ToolErrorCode,
    message: string,
    /** Which refusal of several under one code (a conflict: the page moved, or the proposal was decided). */
    readonly reason?: RefusalReason,
  ) {
    super(message);
    this.name = "AppError";
  }

  /** The error as the caller may see it: itself, the AppError a tRPC error carries, else `unavailable`. */
  static from(error: unknown): AppError {
    if (error instanceof AppError) return error;
    if (error instanceof TRPCError) {
      if (error.cause instanceof AppError) return error.cause;
      // The input parser's refusal (tRPC wraps the schema's ZodError): named by field, clipped, as the tools do.
      if (error.cause instanceof ZodError) return new AppError("mnote_tool_invalid_input", invalidInput(error.cause));
      const code = CODE_OF_TRPC[error.code];
      if (code && code !== "mnote_tool_unavailable") return new AppError(code, clipEcho(error.message));
    }
    return new AppError("mnote_tool_unavailable", TOOL_ERROR_MESSAGES.unavailable);
  }
}

/**
 * What the panel tells apart under one code, so it never compares message text: `mnote_tool_conflict` is either the
 * page moving past a proposal's base revision (`page_moved`: re-run the dry run) or a proposal decided meanwhile
 * (`proposal_decided`: nothing to re-run). The panel's procedures answer it in `data.appError.reason`.
 */
export const REFUSAL_REASONS = ["page_moved", "proposal_decided"] as const;
export type RefusalReason = (typeof REFUSAL_REASONS)[number];

/** Is this an error the code threw on purpose (a rule), rather than something unexpected (a database gone away)? */
export const isAppError = (error: unknown): boolean =>
  error instanceof AppError || (error instanceof TRPCError && error.cause instanceof AppError);

/**
 * Each contract code as a tRPC code. Chosen so the panel answers the HTTP status the bridge answers for the same
 * code (`TOOL_ERROR_HTTP_STATUS`; app-error.test.ts checks every code against tRPC's own status table).
 */
export const TRPC_CODE_OF: Record<ToolErrorCode, TRPC_ERROR_CODE_KEY> = {
  mnote_tool_invalid_input: "UNPROCESSABLE_CONTENT",
  mnote_tool_unauthenticated: "UNAUTHORIZED",
  mnote_tool_permission_denied: "FORBIDDEN",
  mnote_tool_not_found: "NOT_FOUND",
  mnote_tool_conflict: "CONFLICT",
  mnote_tool_idempotency_conflict: "CONFLICT",
  mnote_tool_option_unsupported: "UNPROCESSABLE_CONTENT",
  mnote_tool_approval_required: "CONFLICT",
  mnote_tool_rejected: "CONFLICT",
  mnote_tool_payload_too_large: "PAYLOAD_TOO_LARGE",
  mnote_tool_rate_limited: "TOO_MANY_REQUESTS",
  mnote_tool_unavailable: "SERVICE_UNAVAILABLE",
};

/**
 * tRPC's own refusals (a malformed request, a path that does not exist, a body too large) read back as contract
 * codes: the first contract code mapped to each tRPC code, plus the two tRPC uses for requests it cannot parse.
 */
const CODE_OF_TRPC: Partial<Record<TRPC_ERROR_CODE_KEY, ToolErrorCode>> = {
  BAD_REQUEST: "mnote_tool_invalid_input",
  PARSE_ERROR: "mnote_tool_invalid_input",
  ...Object.fromEntries(
    (Object.entries(TRPC_CODE_OF) as [ToolErrorCode, TRPC_ERROR_CODE_KEY][])
      .reverse()
      .map(([code, trpcCode]) => [trpcCode, code]),
  ),
};

/** The tRPC error a panel procedure answers with: the contract code's tRPC code, the message, the AppError as cause. */
export function toTRPCError(error: AppError): TRPCError {
  return new TRPCError({ code: TRPC_CODE_OF[error.code], message: error.message, cause: error });
}

/** A schema's refusal of a tool's input as the contract words it: `invalid input: ` and the one formatter's words. */
export function invalidInput(error: ZodError): string {
  return `invalid input: ${describeIssues(error)}`;
}
