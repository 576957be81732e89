import { type Block, type Change, type DiffSummaryOp, type ToolArgs } from "@mnote/contract";
import {
  type BlockEditOperation,
  blockIdsNamed,
  EditRejected,
  type PageRecord,
  simulateBlockEdits,
  type SqlKernel,
} from "@mnote/kernel";
import { type Placement, summarizeChanges } from "@mnote/diff";
import { AppError } from "../app-error";
import { withIds } from "./page-save";
import { nextRevisionStep, type Planner, writePlan } from "./write-plan";
import { counted } from "../counted";

type EditArgs = ToolArgs<"mnote.page.edit">;

/**
 * Inserted blocks sent without ids get them from the idempotency key, the operation's index and
 * the block's place (as a save's do), so the dry run, the write and a retry agree. Derived ids are
 * always checked against the page (one primary-key lookup, only when the edit inserts): a taken one
 * is derived again, salted.
 */
export async function withInsertIds(
  kernel: SqlKernel,
  page: PageRecord,
  operations: EditArgs["operations"],
  key: string,
) {
  const onPage = new Set<string>();
  const asked = new Set<string>();
  const assign = () =>
    operations.map((operation, index): BlockEditOperation =>
      operation.op === "insert"
        ? { ...operation, blocks: withIds(operation.blocks!, `${key}:op${index}`, onPage) }
        : operation,
    );
  const derived = (assigned: BlockEditOperation[]) =>
    assigned.flatMap((operation, index) => {
      const sent = operations[index]!;
      if (operation.op !== "insert" || sent.op !== "insert") return [];
      return operation.blocks.filter((_block, i) => !sent.blocks![i]!.id).map((block) => block.id);
    });
  let assigned = assign();
  for (;;) {
    const unasked = derived(assigned).filter((id) => !asked.has(id));
    if (unasked.length === 0) return assigned;
    for (const id of unasked) asked.add(id);
    const found = await kernel.findBlockIds(page.id, unasked);
    if (found.length === 0) return assigned;
    for (const id of found) onPage.add(id);
    assigned = assign();
  }
}

/** The diff summary of an edit before it is worked out against the page: what each operation asks for. */
function requestedDiff(operations: BlockEditOperation[]): DiffSummaryOp[] {
  const count = { insert: 0, delete: 0, update: 0, move: 0 };
  for (const operation of operations) {
    if (operation.op === "replace") count.update += 1;
    else if (operation.op === "insert") count.insert += operation.blocks.length;
    else if (operation.op === "delete") count.delete += operation.blockIds.length;
    else count.move += 1;
  }
  return (["insert", "delete", "update", "move"] as const)
    .filter((op) => count[op] > 0)
    .map((op) => ({ op, blocks: count[op] }));
}

/**
 * Plans an edit from the blocks it names, never the whole page: a one-operation edit on a page of
 * 10,000 blocks reads one row. A plan a person will see (dry run, held write) is worked out exactly
 * with the kernel's own `simulateBlockEdits`; a plain write leaves that to the kernel, which refuses
 * an operation naming a missing block with the same message, in the same transaction as the write.
 */
export const planPageEdit: Planner<EditArgs> = async ({ kernel, input, key, page, exact }) => {
  const operations = await withInsertIds(kernel, page, input.args.operations, key);
  let changes: Change[] = [];
  let diff = requestedDiff(operations);
  let blockCount = page.blockCount;
  if (exact) {
    const located = await kernel.findBlocks(page.id, blockIdsNamed(operations));
    try {
      const simulated = simulateBlockEdits(located, page.blockCount, operations);
      changes = simulated.changes;
      blockCount = simulated.blockCount;
      diff = summarizeChanges(changes, "replace");
    } catch (error) {
      if (error instanceof EditRejected) throw new AppError("mnote_tool_invalid_input", error.message);
      throw error;
    }
  }
  return writePlan(
    page,
    { name: "page.body.edit", operations },
    {
      plan: [
        // "goes from 2 blocks to 2" read as a change of size that is none (issue 36): say the page keeps them.
        `${counted(operations.length, "edit")} to the page's blocks: ` +
          (blockCount === page.blockCount
            ? `the page keeps its ${counted(blockCount, "block")}`
            : `the page goes from ${counted(page.blockCount, "block")} to ${blockCount}`),
        nextRevisionStep(page),
      ],
      diff,
      changes,
      placements: placementsOf(operations, changes),
    },
  );
};

/**
 * Where each insert or move of an edit goes, from its operation (decision 0030): the first block of an insert after
 * the block the operation names (or the page's start or end), each further one after the block before it.
 */
export function placementsOf(operations: readonly BlockEditOperation[], changes: readonly Change[]) {
  const byBlock = new Map<string, Placement>();
  const anchor = (operation: { after?: string; at?: "start" | "end" }): Placement =>
    operation.after !== undefined
      ? { after: operation.after }
      : operation.at === "start"
        ? { after: null }
        : { end: true };
  for (const operation of operations) {
    if (operation.op === "insert") {
      operation.blocks.forEach((block, i) =>
        byBlock.set(block.id, i === 0 ? anchor(operation) : { after: operation.blocks[i - 1]!.id }),
      );
    } else if (operation.op === "move") byBlock.set(operation.blockId, anchor(operation));
  }
  return changes.map((change) =>
    change.kind === "insert" || change.kind === "move" ? (byBlock.get(change.block.id) ?? null) : null,
  );
}

/**
 * The operations a person kept of an edit proposal: `keep(i)` answers for each change the dry run
 * showed, `operationOfChange` says which operation made it. An insert or delete keeps the blocks whose
 * change was kept; a replace or move is kept or dropped whole. Inserted blocks keep the ids the
 * proposal showed, so the new dry run shows the same blocks.
 */
export function keptOperations(
  operations: BlockEditOperation[],
  changes: Change[],
  operationOfChange: number[],
  keep: (changeIndex: number) => boolean,
): BlockEditOperation[] {
  const keptIds = new Set<string>();
  const keptOps = new Set<number>();
  changes.forEach((change, i) => {
    if (!keep(i)) return;
    keptOps.add(operationOfChange[i]!);
    if (change.kind === "insert" || change.kind === "delete") keptIds.add(change.block.id);
  });
  return operations.flatMap((operation, index): BlockEditOperation[] => {
    if (!keptOps.has(index)) return [];
    if (operation.op === "insert")
      return [{ ...operation, blocks: operation.blocks.filter((block: Block) => keptIds.has(block.id)) }];
    if (operation.op === "delete")
      return [{ ...operation, blockIds: operation.blockIds.filter((id) => keptIds.has(id)) }];
    return [operation];
  });
}
