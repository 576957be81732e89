import { type Block, type DryRunResult, PAGE_CONTENT_IS_DATA, TOOL_ERROR_MESSAGES as M } from "@mnote/contract";
import type { ProposalSettlement } from "@mnote/kernel";
import { describeChange, describeChanges, quoteBlock } from "./proposal-merge";
import { AppError } from "./app-error";
import { baseRevisionOf, callIdentity, type CheckedWrite } from "./call-state";
import type { PanelDecision, ToolsContext } from "./context";
import type { ToolEnding } from "./middleware/answer-and-audit";
import type { Planner, Planning, WritePlan } from "./planning/write-plan";
import type { ParsedEnvelope } from "./tool-spec";
import { counted } from "./counted";

/**
 * The last step of every write tool: a replay answers what the key already holds; a dry run records the proposal
 * and returns it; a held agent write records it and waits for a person; anything else is one kernel command.
 */
export async function runWrite<Result, Args>(
  ctx: ToolsContext,
  call: CheckedWrite<ParsedEnvelope<Args>>,
  planner: Planner<Args>,
): Promise<ToolEnding<Result | DryRunResult>> {
  const { input, write } = call;
  // The kernel stores a command's result as the tool's result; the contract suites check it against the schema.
  if (call.replay) return { kind: "replayed", result: call.replay.result as Result, commandId: call.replay.commandId };
  const planning: Planning<Args> = {
    kernel: ctx.kernel,
    input,
    key: write.key,
    page: call.facts.page,
    exact: write.dryRun || write.held,
  };
  let plan = await planner(planning);
  const alreadyApplied = write.stored?.commandId;
  if (alreadyApplied) {
    plan.preview.warnings.push({
      code: "already_applied",
      message: `this idempotency key was already applied as command ${alreadyApplied}; applying again replays that result`,
    });
  }
  // The proposal keeps exactly what the dry run answered, the notice that its page text is data included.
  const preview: DryRunResult = { ...plan.preview, contentNotice: PAGE_CONTENT_IS_DATA };
  const placements = plan.placements ? { placements: plan.placements } : {};
  if (write.dryRun) return { kind: "proposed", result: preview, args: input.args, preview, ...placements };
  if (plan.refuse) throw new AppError(plan.refuse.code, plan.refuse.message);
  if (write.held) return { kind: "held", args: input.args, preview, key: write.key, ...placements };

  const execute = async (planned: WritePlan) =>
    ctx.kernel.execute({
      identity: callIdentity(call),
      command: planned.command,
      baseRevision: baseRevisionOf(input.args) ?? undefined,
      idempotency: {
        key: write.key,
        fingerprint: write.fingerprint,
        expiresAt: new Date(ctx.clock.now().getTime() + ctx.settings.idempotencyTtlMs).toISOString(),
      },
      // The trail says what the write did in words ("inserted 'Alpha line' after 'Rollout'", issue 32), from the
      // blocks as the write's own transaction found them (decision 0049).
      auditDetail: ({ namedBlocks }) => ({
        diff: planned.preview.diff,
        description: ctx.decision?.description ?? describeWrite(planned, namedBlocks),
        ...decisionDetail(ctx),
      }),
      ...(ctx.decision ? { settles: settlement(ctx.decision) } : {}),
    });
  let outcome = await execute(plan);
  if (outcome.kind === "block_id_taken" && !planning.exact) {
    // The plan skipped a check the kernel then failed; plan again against the page as it is.
    plan = await planner({ ...planning, exact: true });
    outcome = await execute(plan);
  }
  switch (outcome.kind) {
    case "applied":
      return { kind: "applied", result: outcome.result as Result, commandId: outcome.commandId };
    case "replayed":
      return { kind: "replayed", result: outcome.result as Result, commandId: outcome.commandId };
    case "idempotency_conflict":
      throw new AppError("mnote_tool_idempotency_conflict", M.idempotencyConflict);
    case "revision_conflict":
      throw new AppError("mnote_tool_conflict", M.conflict, "page_moved");
    case "page_missing":
      throw new AppError("mnote_tool_permission_denied", M.pageUnreadable);
    case "block_id_taken":
      throw new AppError("mnote_tool_invalid_input", "args.content: a block id in content is already on the page");
    case "rejected":
      throw new AppError("mnote_tool_invalid_input", outcome.message);
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
    ...(decision.changes
      ? { changes: decision.changes.decided.map(({ index, state, reason }) => ({ index, state, reason })) }
      : {}),
    ...(decision.description ? { description: decision.description } : {}),
  };
}

/** The proposal a person's decision settles in the write's own transaction: of two deciding at once, one wins. */
const settlement = (decision: PanelDecision): ProposalSettlement => ({
  proposalId: decision.proposalId,
  ...(decision.part ? { part: decision.part } : {}),
  ...(decision.edits ? { edited: true } : {}),
  ...(decision.changes ? { changes: decision.changes } : {}),
});

/**
 * A write's changes in words, from its plan: the changes a plan shows, or for a plain page.edit (whose plan leaves
 * the changes to the kernel) its first operations, with the blocks they name as the edit's transaction found them
 * (`named`: read by id for the edit itself, never the whole page, and not read again for the trail).
 */
function describeWrite(plan: WritePlan, named: readonly Block[]): string {
  const { changes } = plan.preview;
  const shown = new Map<string, Block>();
  for (const change of changes) {
    const block = change.kind === "update" ? change.before : "block" in change ? change.block : null;
    if (block) shown.set(block.id, block);
  }
  if (changes.length > 0) {
    const placements = plan.placements ?? [];
    return describeChanges(changes.map((change, i) => describeChange(change, placements[i], (id) => shown.get(id))));
  }
  if (plan.command.name !== "page.body.edit") return describeChanges([]);
  const operations = plan.command.operations.slice(0, DESCRIBED_OPERATIONS);
  const onPage = new Map(named.map((block) => [block.id, block]));
  const sentences = operations.flatMap((operation): string[] => {
    const place = (o: { after?: string; at?: "start" | "end" }) =>
      o.after !== undefined ? { after: o.after } : o.at === "start" ? { after: null } : { end: true as const };
    switch (operation.op) {
      case "insert":
        return operation.blocks.map((block, i) =>
          describeChange(
            { kind: "insert", index: 0, block },
            i === 0 ? place(operation) : { after: operation.blocks[i - 1]!.id },
            (id) => onPage.get(id) ?? operation.blocks.find((b) => b.id === id),
          ),
        );
      case "delete":
        return operation.blockIds.map((id) =>
          onPage.get(id) ? `deleted ${quoteBlock(onPage.get(id)!)}` : `deleted block ${id}`,
        );
      case "replace": {
        const before = onPage.get(operation.blockId);
        if (!before) return [`changed block ${operation.blockId}`];
        return operation.text !== undefined && operation.text !== before.text
          ? [`changed ${quoteBlock(before)} to ${quoteBlock({ ...before, text: operation.text })}`]
          : [`changed ${quoteBlock(before)}`];
      }
      case "move": {
        const block = onPage.get(operation.blockId);
        return [
          block
            ? describeChange({ kind: "move", from: 0, to: 0, block }, place(operation), (id) => onPage.get(id))
            : `moved block ${operation.blockId}`,
        ];
      }
    }
  });
  const more = plan.command.operations.length - operations.length;
  return describeChanges(more > 0 ? [...sentences, `and ${counted(more, "more edit", "more edits")}`] : sentences);
}

/** How many operations of a plain edit the trail puts in words; the rest are counted. */
const DESCRIBED_OPERATIONS = 3;
