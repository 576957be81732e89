import { type Block, LIST_TYPES, MARKED_TYPES } from "@mnote/contract";
import type { AnchoredStep, Place } from "@mnote/diff";
import type { BlockEditOperation } from "@mnote/kernel";

/**
 * A block's fields as a replace operation sets them: marks and indent said even when empty, so a replace
 * writes exactly this block (left out, the kernel keeps the old block's marks and indent).
 */
function replaceFields(block: Block) {
  const { id: _id, ...fields } = block as Block & { marks?: unknown[]; indent?: number };
  return {
    ...fields,
    ...(MARKED_TYPES.has(block.type) && !("marks" in fields) ? { marks: [] } : {}),
    ...(LIST_TYPES.has(block.type) && !("indent" in fields) ? { indent: 0 } : {}),
  };
}

const placeArgs = (place: Place) => ("after" in place ? { after: place.after } : { at: place.at });

/**
 * Anchored steps as page.edit operations (ids given, so the kernel writes exactly these blocks). Consecutive inserts
 * that chain (each after the one before) become one operation, and the deletes one: a decision on 300 changes stays
 * within the edit's operation limit.
 */
export function toOperations(steps: readonly AnchoredStep[]): BlockEditOperation[] {
  const operations: BlockEditOperation[] = [];
  const deletes: string[] = [];
  for (const step of steps) {
    const last = operations.at(-1);
    switch (step.op) {
      case "replace":
        operations.push({ op: "replace", blockId: step.block.id, ...replaceFields(step.block) } as BlockEditOperation);
        break;
      case "delete":
        deletes.push(step.blockId);
        break;
      case "insert":
        if (last?.op === "insert" && "after" in step.place && last.blocks.at(-1)!.id === step.place.after) {
          last.blocks.push(step.block);
        } else operations.push({ op: "insert", ...placeArgs(step.place), blocks: [step.block] });
        break;
      case "move":
        operations.push({ op: "move", blockId: step.blockId, ...placeArgs(step.place) });
        break;
    }
  }
  if (deletes.length) operations.push({ op: "delete", blockIds: deletes });
  return operations;
}
