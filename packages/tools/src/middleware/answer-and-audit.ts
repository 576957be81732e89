import {
  type DryRunResult,
  echoField,
  type Effect,
  failureEnvelope,
  type OutputEnvelope,
  TOOL_ERROR_MESSAGES as M,
} from "@mnote/contract";
import type { AccessFacts, AuditInput } from "@mnote/kernel";
import { canReadPage } from "../access";
import { AppError, isAppError } from "../app-error";
import { baseRevisionOf, type CallKnown, callIdentity, envelopeIds, unverifiedClaims } from "../call-state";
import type { ToolsContext } from "../context";
import { proposalSummary } from "../proposal-summary";

/**
 * How a tool call ended, as the tool's code (or a check's refusal) says it. The caller's answer follows from it,
 * and so does who writes the call's one audit record: `answerCall` decides both, in one place.
 * - `read`: answered with its result; the router records it (`ok`).
 * - `proposed`: a dry run, answered with its preview; the router records the proposal (args and preview).
 * - `held`: a write the approval policy holds, answered `mnote_tool_approval_required`; the router records the
 *   proposal a person decides on (`held_for_approval`).
 * - `applied`: a command ran; the kernel wrote the record inside the command's transaction, so the change and its
 *   record are one. Nothing is left to write.
 * - `replayed`: the result an earlier call with this key (or a person's approval of it) left; the router records it.
 * - `refused`: a contract error; the router records it (`failed`).
 */
export type ToolEnding<Result> =
  | { kind: "read"; result: Result }
  /** `result` is the preview itself (a write tool's result type is `Result | DryRunResult`). */
  | { kind: "proposed"; result: Result; args: unknown; preview: DryRunResult; placements?: unknown[] }
  | { kind: "held"; args: unknown; preview: DryRunResult; key: string; placements?: unknown[] }
  | { kind: "applied"; result: Result; commandId: string }
  | { kind: "replayed"; result: Result; commandId: string }
  | { kind: "refused"; error: AppError };

/**
 * A failure thrown anywhere in the call as its ending: a rule's `AppError` (a check's, a planner's) as it is;
 * anything else (a database gone away) is logged and answered without its internals.
 */
export function refusalOf(ctx: ToolsContext, toolName: string, error: unknown): ToolEnding<never> {
  if (isAppError(error)) return { kind: "refused", error: AppError.from(error) };
  ctx.logger.error({ tool: toolName, err: error }, "tool failed unexpectedly");
  return { kind: "refused", error: AppError.from(null) };
}

/**
 * The call's answer, and its one audit record: every call leaves exactly one, whichever check or step ended it.
 * `known` is what the checks learned before the call ended; a refused call's record says no more than that.
 */
export async function answerCall<Result>(
  ctx: ToolsContext,
  known: CallKnown,
  ending: ToolEnding<Result>,
): Promise<OutputEnvelope<Result>> {
  const envelope = envelopeOf(known, ending);
  if (ending.kind !== "applied") await recordCall(ctx, known, ending, envelope.audit.effect);
  return envelope;
}

function envelopeOf<Result>(known: CallKnown, ending: ToolEnding<Result>): OutputEnvelope<Result> {
  const ids = envelopeIds(known);
  const name = known.tool.name;
  switch (ending.kind) {
    case "refused":
      return failureEnvelope(name, ids, { code: ending.error.code, message: ending.error.message });
    case "held":
      return failureEnvelope(name, ids, {
        code: "mnote_tool_approval_required",
        message: M.approvalRequired(ending.key),
      });
    case "proposed":
      return success(name, ids, ending.result, "dry_run", null);
    case "read":
      return success(name, ids, ending.result, "read", null);
    case "applied":
    case "replayed":
      return success(name, ids, ending.result, "write", ending.commandId);
  }
}

function success<Result>(
  toolName: string,
  ids: ReturnType<typeof envelopeIds>,
  result: Result,
  effect: Effect,
  commandId: string | null,
): OutputEnvelope<Result> {
  return {
    ok: true,
    toolName,
    toolCallId: ids.toolCallId,
    traceId: ids.traceId,
    result,
    audit: { effect, commandId, workspaceId: ids.workspaceId, documentId: ids.documentId },
    error: null,
  };
}

/** The router's record of a call the kernel did not already record. */
async function recordCall(
  ctx: ToolsContext,
  known: CallKnown,
  ending: Exclude<ToolEnding<unknown>, { kind: "applied" }>,
  effect: Effect,
) {
  try {
    const errorCode =
      ending.kind === "refused" ? ending.error.code : ending.kind === "held" ? "mnote_tool_approval_required" : null;
    const verified = await targetVerified(ctx, known, errorCode !== null);
    const proposal = ending.kind === "proposed" || ending.kind === "held" ? ending : null;
    const record: AuditInput = {
      identity: callIdentity(known, verified),
      effect,
      outcome: outcomeOf(ending),
      errorCode,
      commandId: ending.kind === "replayed" ? ending.commandId : null,
      idempotencyKey: known.input?.idempotencyKey ?? null,
      payloadFingerprint: known.write?.fingerprint ?? null,
      // A proposal made without a base revision still records the one its diff was computed on.
      baseRevision: baseRevisionOf(known.input?.args) ?? proposal?.preview.baseRevision ?? null,
      // A proposal keeps where its inserts and moves go (decision 0030), to merge it with the page as it moves on.
      detail: proposal
        ? {
            args: proposal.args,
            preview: proposal.preview,
            ...(proposal.placements ? { placements: proposal.placements } : {}),
          }
        : refusalDetail(known, ending, verified),
      // A proposal's index row carries a summary, so the panel's list never reads the full preview.
      summary: proposal ? proposalSummary(proposal.preview) : null,
      durationMs: performance.now() - known.startedAt,
    };
    await ctx.kernel.appendAudit(record);
  } catch (error) {
    // The answer already stands; losing an audit line for a read is logged, not turned into a failure.
    ctx.logger.error({ tool: known.tool.name, err: error }, "audit append failed");
  }
}

function outcomeOf(ending: Exclude<ToolEnding<unknown>, { kind: "applied" }>): AuditInput["outcome"] {
  switch (ending.kind) {
    case "read":
      return "ok";
    case "proposed":
      return "proposal";
    case "held":
      return "held_for_approval";
    case "replayed":
      return "replayed";
    case "refused":
      return "failed";
  }
}

/**
 * What a refused (or replayed, or read) call's record keeps besides its identity: for a repeat of a held write, the
 * decision it was answered with; for a call without a valid token, or refused on a page its caller may not read,
 * the ids it claimed, marked as unverified, for an operator's eyes only.
 */
function refusalDetail(
  known: CallKnown,
  ending: ToolEnding<unknown>,
  verified: boolean,
): Record<string, unknown> | null {
  const decided = known.decision?.proposal;
  if (ending.kind === "refused" && decided && decided.status !== "applied") {
    return { proposalId: decided.auditId, decision: decided.status };
  }
  return known.token && verified ? null : unverifiedClaims(known.raw);
}

/**
 * May the record name the workspace, page, session and run the call named? Always for a call that passed the
 * checks; for a refused one only when its caller may read that page (issue 20: a stranger's refused call must not
 * land in the page's trail, a conversation's calls or the change feed). The checks' facts decide; a call refused
 * before they were read (a bad envelope) costs one read of the facts for the ids it sent.
 */
async function targetVerified(ctx: ToolsContext, known: CallKnown, failed: boolean): Promise<boolean> {
  if (!known.token || !failed) return true;
  // A workspace tool's target is the workspace: its member may see their refused call in its trail.
  const seesTarget = known.tool.scope === "workspace" ? isMember : canReadPage;
  const facts = known.facts ?? (known.envelope?.ok ? known.envelope.facts : null);
  if (facts) return seesTarget(facts);
  const workspaceId = echoField(known.raw, "workspaceId");
  const documentId = known.tool.scope === "workspace" ? null : echoField(known.raw, "documentId");
  if (!workspaceId || (documentId === null && known.tool.scope !== "workspace")) return false;
  return seesTarget(await ctx.kernel.getAccessFacts({ workspaceId, documentId, userId: known.token.userId }));
}

const isMember = (facts: AccessFacts): boolean => facts.workspace !== null && facts.role !== null;
