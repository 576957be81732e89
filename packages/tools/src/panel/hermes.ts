import { TOOL_ERROR_MESSAGES } from "@mnote/contract";
import {
  HERMES_NOT_CONFIGURED,
  hermesFailureAnswer,
  type HermesReadiness,
  type PanelHermes,
  pumpRun,
} from "@mnote/hermes-runs";
import { mnoteMetrics } from "@mnote/process";
import { AppError, isAppError } from "../app-error";
import type { ToolsContext } from "../context";

/**
 * What the `panel.hermes.*` procedures share (decision 0043): the panel's Hermes from the context, Hermes's
 * failures in the contract's words, and the run pump. The procedures are the browser's one typed client of Ask
 * Hermes; the panel's `/api/hermes/*` routes are adapters calling the same procedures.
 */

/**
 * What a person on the page reads when Ask Hermes is off: what they can do and whom to ask, never the settings that
 * would fix it (those are the operator's, in the panel's log and the README).
 */
export const ASK_HERMES_NOT_SET_UP =
  "Ask Hermes is not set up for this panel. The person who runs mnote for your team can connect it.";
export const ASK_HERMES_UNAVAILABLE =
  "Ask Hermes is not available right now. Try again later; if it stays off, tell the person who runs mnote for your team (the panel's log says what to change).";

/** The panel's Hermes, or the refusal that says it is not set up (the bridge and the CLI have none). */
export function requireHermes(ctx: ToolsContext): PanelHermes {
  if (!ctx.hermes) {
    logOperatorHelp(ctx, HERMES_NOT_CONFIGURED);
    throw new AppError("mnote_tool_unavailable", ASK_HERMES_NOT_SET_UP);
  }
  return ctx.hermes;
}

/** Readiness in a person's words (`help` stays the operator's, for the log), and the operator's reason logged. */
export function personHelp(ctx: ToolsContext, readiness: HermesReadiness): string | null {
  if (readiness.connected) {
    logOperatorHelp(ctx, null);
    return null;
  }
  logOperatorHelp(ctx, readiness.help ?? null);
  return ASK_HERMES_UNAVAILABLE;
}

/** The operator's reason Ask Hermes is off, logged once each time it changes (not on every request). */
let lastLoggedHelp: string | null = null;
export function logOperatorHelp(ctx: ToolsContext, help: string | null): void {
  // Some reasons already start "Ask Hermes is off: " (the toolset check's): said once in the line.
  if (help && help !== lastLoggedHelp)
    ctx.logger.warn({}, `[panel] Ask Hermes is off: ${help.replace(/^Ask Hermes is off: /, "")}`);
  lastLoggedHelp = help;
}

/**
 * A failed call to Hermes as the router's one error type: unreachable, the key refused and Hermes busy in the words
 * of `hermesFailureAnswer`; a rule of the router (an AppError) as it was; anything else logged and `unavailable`.
 */
export function hermesRefusal(ctx: ToolsContext, error: unknown): AppError {
  if (isAppError(error)) return AppError.from(error);
  const answer = hermesFailureAnswer(error);
  if (answer) return new AppError(answer.code, answer.message);
  ctx.logger.error({ errorType: error instanceof Error ? error.name : typeof error }, "[panel] Hermes call failed");
  return new AppError("mnote_tool_unavailable", TOOL_ERROR_MESSAGES.unavailable);
}

/**
 * Reads a run's events from Hermes into the kernel's run lines, where every instance's readers find them (`pumpRun`),
 * and counts how it ended. Started by `panel.hermes.ask` and not awaited: the run outlives the request that asked it.
 * No procedure of its own on purpose: it relays Hermes's stream (no person's decision in it), and a procedure would
 * let a person write lines into their own run or keep it alive past the sweep.
 */
export function pumpAskRun(ctx: ToolsContext, hermes: PanelHermes, runId: string): Promise<void> {
  return pumpRun({
    hermes: hermes.client,
    store: ctx.kernel.ask,
    runId,
    // The error's kind only: a failure's message may quote what Hermes said.
    warn: (message, error) =>
      ctx.logger.error({ runId, errorType: error instanceof Error ? error.name : typeof error }, `[panel] ${message}`),
  }).then((end) => void mnoteMetrics().hermesRuns.inc({ outcome: end.outcome }));
}
