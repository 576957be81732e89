import { TOOL_ERROR_MESSAGES } from "@mnote/contract";
import { HERMES_NOT_CONFIGURED, hermesFailureAnswer, type PanelHermes, pumpRun } from "@mnote/hermes-runs";
import { mnoteMetrics } from "@mnote/process";
import { AppError, isAppError } from "../app-error";
import type { ToolsContext } from "../context";

/**
 * What the `panel.hermes.*` procedures share (decision 0043): the panel's Hermes from the context, Hermes's
 * failures in the contract's words, and the run pump. The procedures are the browser's one typed client of Ask
 * Hermes; the panel's `/api/hermes/*` routes are adapters calling the same procedures.
 */

/** The panel's Hermes, or the refusal that says how to connect it (the bridge and the CLI have none). */
export function requireHermes(ctx: ToolsContext): PanelHermes {
  if (!ctx.hermes) throw new AppError("mnote_tool_unavailable", HERMES_NOT_CONFIGURED);
  return ctx.hermes;
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
