import {
  describeIssues,
  type Block,
  BlockSchema,
  canonicalBlock,
  type Change,
  type EditOperation,
  LIST_TYPES,
  type Mark,
  MARKED_TYPES,
} from "@mnote/contract";

/** An edit operation as the kernel runs it: inserted blocks carry their ids (assigned by the planner). */
export type BlockEditOperation =
  | Exclude<EditOperation, { op: "insert" }>
  | (Omit<Extract<EditOperation, { op: "insert" }>, "blocks"> & { blocks: Block[] });

/** A block the edit names, and where it is on the page (0-based). */
export interface LocatedBlock {
  block: Block;
  index: number;
}

/**
 * One step of an edit in database terms, with the positions it happens at: the SQL that runs it
 * shifts the positions of the blocks behind it, so positions stay 0..count-1 with no gaps.
 */
export type EditStep =
  | { kind: "update"; block: Block }
  | { kind: "insert"; index: number; blocks: Block[] }
  | { kind: "delete"; index: number; id: string }
  | { kind: "move"; id: string; from: number; to: number };

/** How to take one step back, applied newest first to the page after the edit (see `undoBlockEdits`). */
export type EditUndoStep =
  { restore: Block } | { remove: string[] } | { place: Block; index: number } | { move: string; index: number };

export interface SimulatedEdit {
  steps: EditStep[];
  changes: Change[];
  undo: EditUndoStep[];
  insertedBlockIds: string[];
  blockCount: number;
  /** By change: the index of the operation that made it (a panel keeps or drops changes per operation part). */
  operationOfChange: number[];
}

/** An operation that cannot apply; the message names the operation by its index in `args.operations`. */
export class EditRejected extends Error {}

const reject = (index: number, message: string): never => {
  throw new EditRejected(`args.operations[${index}]: ${message}`);
};

/**
 * The ids an edit names: the blocks it changes or anchors on, and the ids of the blocks it inserts
 * (which must not be on the page yet). Reading just these is all an edit needs of the page.
 */
export function blockIdsNamed(operations: readonly BlockEditOperation[]): string[] {
  const ids = new Set<string>();
  for (const operation of operations) {
    switch (operation.op) {
      case "replace":
        ids.add(operation.blockId);
        break;
      case "delete":
        for (const id of operation.blockIds) ids.add(id);
        break;
      case "insert":
        if (operation.after) ids.add(operation.after);
        for (const block of operation.blocks) ids.add(block.id);
        break;
      case "move":
        ids.add(operation.blockId);
        if (operation.after) ids.add(operation.after);
        break;
    }
  }
  return [...ids];
}

/**
 * A `replace` operation applied to a block: the fields it names change, the rest stay. A new type
 * keeps the text and takes the new type's attributes (given, or their defaults); the result must be
 * a block the contract accepts, or the operation is refused.
 *
 * Formatting (decision 0026): `marks` given replace the block's marks (`[]` clears them); `marks` left
 * out keep them while the text stays the same and drop them with new text (old offsets would mark the
 * wrong characters). `indent` left out is kept while the block stays a list item.
 */
export function replaceBlock(block: Block, operation: Extract<EditOperation, { op: "replace" }>, index: number): Block {
  const { op: _op, blockId: _id, markdown: _markdown, type, text, marks, indent, ...attributes } = operation;
  const typeChanges = type !== undefined && type !== block.type;
  const {
    id: _i,
    type: _t,
    text: _x,
    marks: oldMarks,
    indent: oldIndent,
    ...oldAttributes
  } = block as Block & { marks?: Mark[]; indent?: number };
  const kept = typeChanges ? {} : oldAttributes;
  const newType = type ?? block.type;
  const newText = text ?? block.text;
  const keptMarks = marks ?? (newText === block.text && MARKED_TYPES.has(newType) ? oldMarks : undefined);
  const keptIndent = indent ?? (LIST_TYPES.has(newType) ? oldIndent : undefined);
  const defaults: Record<string, unknown> =
    ({ heading: { level: 1 }, todo: { checked: false }, code: { language: "" } }[newType] as Record<string, unknown>) ??
    {};
  const candidate = {
    ...defaults,
    ...kept,
    ...attributes,
    ...(keptMarks !== undefined ? { marks: keptMarks } : {}),
    ...(keptIndent !== undefined ? { indent: keptIndent } : {}),
    id: block.id,
    type: newType,
    text: newText,
  };
  const parsed = BlockSchema.safeParse(candidate);
  if (!parsed.success) {
    return reject(index, `replace of block ${block.id}: ${describeIssues(parsed.error, { root: "block", max: 1 })}`);
  }
  return canonicalBlock(parsed.data);
}

const sameBlock = (a: Block, b: Block) => JSON.stringify(a) === JSON.stringify(b);

/**
 * Runs an edit on the blocks it names only: `located` holds those that are on the page, with their
 * indices, and every step shifts the indices of the located blocks it passes. A one-operation edit on a
 * page of 10,000 blocks costs the same as on one of 100. The kernel turns the steps into SQL; the dry
 * run shows the changes; the undo steps let a revert rebuild the page as it was.
 */
export function simulateBlockEdits(
  located: readonly LocatedBlock[],
  blockCount: number,
  operations: readonly BlockEditOperation[],
): SimulatedEdit {
  const known = new Map<string, LocatedBlock>(located.map((entry) => [entry.block.id, { ...entry }]));
  const result: SimulatedEdit = {
    steps: [],
    changes: [],
    undo: [],
    insertedBlockIds: [],
    blockCount,
    operationOfChange: [],
  };
  const shift = (fromIndex: number, by: number, exceptId?: string) => {
    for (const [id, entry] of known) if (entry.index >= fromIndex && id !== exceptId) entry.index += by;
  };
  const find = (id: string, at: number) => known.get(id) ?? reject(at, `block ${id} is not on the page`);
  const anchorIndex = (operation: { after?: string; at?: "start" | "end" }, at: number) =>
    operation.after !== undefined
      ? find(operation.after, at).index + 1
      : operation.at === "start"
        ? 0
        : result.blockCount;

  operations.forEach((operation, at) => {
    simulateOne(operation, at);
    while (result.operationOfChange.length < result.changes.length) result.operationOfChange.push(at);
  });
  return result;

  function simulateOne(operation: BlockEditOperation, at: number) {
    switch (operation.op) {
      case "replace": {
        const entry = find(operation.blockId, at);
        const after = replaceBlock(entry.block, operation, at);
        if (sameBlock(after, entry.block)) return;
        result.steps.push({ kind: "update", block: after });
        result.changes.push({ kind: "update", index: entry.index, before: entry.block, after });
        result.undo.push({ restore: entry.block });
        entry.block = after;
        return;
      }
      case "insert": {
        const index = anchorIndex(operation, at);
        const seen = new Set<string>();
        for (const block of operation.blocks) {
          if (known.has(block.id)) reject(at, `block id ${block.id} is already on the page`);
          if (seen.has(block.id)) reject(at, `block id ${block.id} appears twice`);
          seen.add(block.id);
        }
        shift(index, operation.blocks.length);
        operation.blocks.forEach((block, offset) => {
          known.set(block.id, { block, index: index + offset });
          result.changes.push({ kind: "insert", index: index + offset, block });
          result.insertedBlockIds.push(block.id);
        });
        result.steps.push({ kind: "insert", index, blocks: operation.blocks });
        result.undo.push({ remove: operation.blocks.map((block) => block.id) });
        result.blockCount += operation.blocks.length;
        return;
      }
      case "delete": {
        for (const id of operation.blockIds) {
          const entry = find(id, at);
          known.delete(id);
          shift(entry.index + 1, -1);
          result.steps.push({ kind: "delete", index: entry.index, id });
          result.changes.push({ kind: "delete", index: entry.index, block: entry.block });
          result.undo.push({ place: entry.block, index: entry.index });
          result.blockCount -= 1;
        }
        return;
      }
      case "move": {
        const entry = find(operation.blockId, at);
        if (operation.after === operation.blockId) reject(at, `cannot move block ${operation.blockId} after itself`);
        const from = entry.index;
        // Take the block out, find the anchor among the rest, put it back there.
        known.delete(entry.block.id);
        shift(from + 1, -1);
        result.blockCount -= 1;
        const to = anchorIndex(operation, at);
        shift(to, 1);
        result.blockCount += 1;
        known.set(entry.block.id, { block: entry.block, index: to });
        if (to === from) return;
        result.steps.push({ kind: "move", id: entry.block.id, from, to });
        result.changes.push({ kind: "move", from, to, block: entry.block });
        result.undo.push({ move: entry.block.id, index: from });
        return;
      }
    }
  }
}

/** The same edit on a whole block list in memory: what the SQL steps do to the stored page. */
export function applyBlockEdits(blocks: readonly Block[], operations: readonly BlockEditOperation[]): Block[] {
  const located = blocks.map((block, index) => ({ block, index }));
  const { steps } = simulateBlockEdits(located, blocks.length, operations);
  const result = [...blocks];
  for (const step of steps) {
    switch (step.kind) {
      case "update":
        result[result.findIndex((block) => block.id === step.block.id)] = step.block;
        break;
      case "insert":
        result.splice(step.index, 0, ...step.blocks);
        break;
      case "delete":
        result.splice(step.index, 1);
        break;
      case "move": {
        const [moved] = result.splice(step.from, 1);
        result.splice(step.to, 0, moved!);
        break;
      }
    }
  }
  return result;
}

/** Walks an edit back on the blocks as the edit left them: undo steps newest first. */
export function undoBlockEdits(blocks: readonly Block[], undo: readonly EditUndoStep[]): Block[] {
  const result = [...blocks];
  for (let i = undo.length - 1; i >= 0; i--) {
    const step = undo[i]!;
    if ("restore" in step) result[result.findIndex((block) => block.id === step.restore.id)] = step.restore;
    else if ("remove" in step) {
      const removed = new Set(step.remove);
      const kept = result.filter((block) => !removed.has(block.id));
      result.length = 0;
      result.push(...kept);
    } else if ("place" in step) result.splice(step.index, 0, step.place);
    else {
      const from = result.findIndex((block) => block.id === step.move);
      const [moved] = result.splice(from, 1);
      result.splice(step.index, 0, moved!);
    }
  }
  return result;
}
