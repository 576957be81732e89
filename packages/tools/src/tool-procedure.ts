import {
  type DryRunPreview,
  type DryRunResult,
  PAGE_CONTENT_IS_DATA,
  TOOL_ERROR_MESSAGES as M,
  type OutputEnvelope,
  type ToolErrorCode,
  type ToolInput,
  type ToolName,
} from "@mnote/contract";
import type { KernelAdapter, KernelCommand, PageRecord, ProposalSettlement } from "@mnote/kernel";
import { type CallState, callIdentity, type ParsedEnvelope, successEnvelope } from "./call";
import type { PanelDecision, ToolsContext } from "./context";
import { fail } from "./failure";
import { checkCall, isHeld } from "./middleware/checks";
import { envelopeAndAudit } from "./middleware/envelope";
import type { ToolSpec } from "./tool-spec";
import { publicProcedure } from "./trpc";

/**
 * The typed input a client sends. Validation is not done by tRPC's input parser
 * (it would answer a tRPC error); `validateEnvelope` does it and answers the contract's.
 */
const envelopeInput =
  <Input>() =>
  (raw: unknown) =>
    raw as Input;

/** A procedure with the whole chain of checks in front of it. */
export function toolProcedure<Input = ToolInput<ToolName>>(spec: ToolSpec) {
  return publicProcedure.meta({ tool: spec }).input(envelopeInput<Input>()).use(envelopeAndAudit).use(checkCall);
}

/** What a checked call hands to a tool's own code. */
export interface CheckedCall {
  kernel: KernelAdapter;
  call: CallState;
  input: ParsedEnvelope;
  page: PageRecord;
  /**
   * The plan will be shown to a person (a dry run, a write held for approval), so it must be exact.
   * Otherwise a planner may skip a check the kernel makes anyway while writing (an append's derived
   * block ids): if the kernel refuses, `runWrite` plans again with this set.
   */
  exact: boolean;
}

export function checkedCall(ctx: ToolsContext & { call: CallState }, exact = true): CheckedCall {
  return { kernel: ctx.kernel, call: ctx.call, input: ctx.call.input!, page: ctx.call.facts!.page!, exact };
}

/** What a write tool works out before anything is written: the command, and the dry run a person would see. */
export interface WritePlan {
  command: KernelCommand;
  preview: DryRunPreview;
  /** Set when a real call must not run even though the dry run may (an option not wired yet). */
  refuse?: { code: ToolErrorCode; message: string };
}

export type Planner = (checked: CheckedCall) => Promise<WritePlan>;

/** What a planner works out for the dry run; the rest of it comes from the command and the page. */
export type PlanPreview = Pick<DryRunPreview, "plan" | "diff" | "changes"> & { warnings?: DryRunPreview["warnings"] };

/**
 * The plan of `command` on `page`. The dry run takes its command name from the command and its base
 * revision from the page, so a planner names its command once (the contract's `commandName` is checked
 * against what a dry run answers in dry-run.test.ts).
 */
export function writePlan(
  page: PageRecord,
  command: KernelCommand,
  preview: PlanPreview,
  refuse?: WritePlan["refuse"],
): WritePlan {
  return {
    command,
    preview: {
      dryRun: true,
      commandName: command.name,
      baseRevision: page.revision,
      ...preview,
      warnings: preview.warnings ?? [],
    },
    ...(refuse ? { refuse } : {}),
  };
}

/** The plan's line for a command that moves the page to its next revision. */
export const nextRevisionStep = (page: PageRecord) => `page revision ${page.revision} → ${page.revision + 1}`;

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
        expiresAt: new Date(Date.now() + ctx.settings.idempotencyTtlMs).toISOString(),
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
      call.auditWritten = true;
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
