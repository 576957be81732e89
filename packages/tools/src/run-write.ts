import {
  type DryRunResult,
  PAGE_CONTENT_IS_DATA,
  TOOL_ERROR_MESSAGES as M,
  type OutputEnvelope,
} from "@mnote/contract";
import { type CallState, callIdentity, successEnvelope } from "./call-state";
import type { ProposalSettlement } from "@mnote/kernel";
import type { PanelDecision, ToolsContext } from "./context";
import { fail } from "./app-error";
import { isHeld } from "./middleware/checks";
import type { Planner, WritePlan } from "./planning/write-plan";
import { checkedCall } from "./tool-procedure";

/**
 * The last step of every write tool: a dry run records the proposal and returns
 * it; a held agent write records it and waits for a person; anything else is one
 * kernel command.
 */
export async function runWrite<Result>(
  ctx: ToolsContext & { call: CallState },
  planner: Planner,
): Promise<OutputEnvelope<Result | DryRunResult>> {
  const { call } = ctx;
  const input = call.input!;
  if (call.replay) {
    call.audit = { outcome: "replayed" };
    return successEnvelope(call, call.replay.result as Result, "write", call.replay.commandId);
  }
  const held = isHeld(call);
  const checked = checkedCall(ctx, input.dryRun || held);
  let plan = await planner(checked);
  if (call.alreadyApplied) {
    plan.preview.warnings.push({
      code: "already_applied",
      message: `this idempotency key was already applied as command ${call.alreadyApplied}; applying again replays that result`,
    });
  }
  // The proposal keeps exactly what the dry run answered, the notice that its page text is data included.
  const preview: DryRunResult = { ...plan.preview, contentNotice: PAGE_CONTENT_IS_DATA };
  const proposal = { args: input.args, preview };
  if (input.dryRun) {
    call.audit = { outcome: "proposal", detail: proposal };
    return successEnvelope(call, preview, "dry_run", null);
  }
  if (plan.refuse) return fail(plan.refuse.code, plan.refuse.message);
  if (held) {
    call.audit = { outcome: "held_for_approval", detail: proposal };
    return fail("mnote_tool_approval_required", M.approvalRequired(input.idempotencyKey!));
  }

  const execute = (planned: WritePlan) =>
    ctx.kernel.execute({
      identity: callIdentity(call),
      command: planned.command,
      baseRevision: input.args.baseRevision as number | undefined,
      idempotency: {
        key: input.idempotencyKey!,
        fingerprint: call.fingerprint!,
        expiresAt: new Date(ctx.clock.now().getTime() + ctx.settings.idempotencyTtlMs).toISOString(),
      },
      auditDetail: { diff: planned.preview.diff, ...decisionDetail(ctx) },
      ...(ctx.decision ? { settles: settlement(ctx.decision) } : {}),
    });
  let outcome = await execute(plan);
  if (outcome.kind === "block_id_taken" && !checked.exact) {
    // The plan skipped a check the kernel then failed; plan again against the page as it is.
    plan = await planner({ ...checked, exact: true });
    outcome = await execute(plan);
  }
  switch (outcome.kind) {
    case "applied":
      call.audit = "kernel";
      return successEnvelope(call, outcome.result as Result, "write", outcome.commandId);
    case "replayed":
      call.audit = { outcome: "replayed" };
      return successEnvelope(call, outcome.result as Result, "write", outcome.commandId);
    case "idempotency_conflict":
      return fail("mnote_tool_idempotency_conflict", M.idempotencyConflict);
    case "revision_conflict":
      return fail("mnote_tool_conflict", M.conflict);
    case "page_missing":
      return fail("mnote_tool_permission_denied", M.pageUnreadable);
    case "block_id_taken":
      return fail("mnote_tool_invalid_input", "args.content: a block id in content is already on the page");
    case "rejected":
      return fail("mnote_tool_invalid_input", outcome.message);
  }
}

/**
 * What an approval's write record keeps of the decision: the proposal, its proposer, how much of it was applied,
 * and for a person's edits both versions of each edited block (who edited is the write's actor).
 */
function decisionDetail(ctx: ToolsContext): Record<string, unknown> {
  const { decision } = ctx;
  if (!decision) return {};
  return {
    proposalId: decision.proposalId,
    proposer: decision.proposer,
    ...(decision.part ? { part: { kept: decision.part.kept.length, total: decision.part.total } } : {}),
    ...(decision.edits ? { edits: decision.edits } : {}),
  };
}

/** The proposal a person's decision settles in the write's own transaction: of two deciding at once, one wins. */
const settlement = (decision: PanelDecision): ProposalSettlement => ({
  proposalId: decision.proposalId,
  ...(decision.part ? { part: decision.part } : {}),
  ...(decision.edits ? { edited: true } : {}),
});
