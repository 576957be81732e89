import type { Block, Change } from "@mnote/contract";
import { longestIncreasingSubsequence } from "./lis";

/** The kinds of `Change` that concern the body's blocks; title, options and notes are diffed elsewhere. */
export type BlockChange = Extract<Change, { kind: "insert" | "delete" | "update" | "move" }>;

/**
 * Block-level diff, matching blocks by id. Deletes come first (before order), then the
 * inserts, moves and updates in after order; a block that moved and changed gives both.
 */
export function diffBlocks(before: Block[], after: Block[]): Change[] {
  const beforeIndex = indexById(before);
  const afterIndex = indexById(after);
  const inPlace = blocksKeptInPlace(after, beforeIndex);
  const changes: BlockChange[] = [];

  before.forEach((block, index) => {
    if (!afterIndex.has(block.id)) changes.push({ kind: "delete", index, block });
  });

  after.forEach((block, index) => {
    const from = beforeIndex.get(block.id);
    if (from === undefined) {
      changes.push({ kind: "insert", index, block });
      return;
    }
    if (!inPlace[index]) changes.push({ kind: "move", from, to: index, block });
    const old = before[from]!;
    if (!sameBlock(old, block)) changes.push({ kind: "update", index, before: old, after: block });
  });

  return changes;
}

export function indexById(blocks: readonly Block[]): Map<string, number> {
  const index = new Map<string, number>();
  blocks.forEach((block, i) => index.set(block.id, i));
  return index;
}

/**
 * Flags, by after index, the common blocks that count as staying put: the longest run whose
 * before positions still increase in after order. Every other common block is reported as a
 * move, so the panel shows the fewest moves that explain the new order.
 */
function blocksKeptInPlace(after: readonly Block[], beforeIndex: ReadonlyMap<string, number>): Uint8Array {
  const afterPositions: number[] = [];
  const beforePositions: number[] = [];
  after.forEach((block, index) => {
    const from = beforeIndex.get(block.id);
    if (from === undefined) return;
    afterPositions.push(index);
    beforePositions.push(from);
  });

  const inPlace = new Uint8Array(after.length);
  for (const i of longestIncreasingSubsequence(beforePositions)) inPlace[afterPositions[i]!] = 1;
  return inPlace;
}

/**
 * Compares every field rather than a fixed list so a field added to a block type later
 * still shows up as an update instead of being silently dropped.
 */
function sameBlock(a: Block, b: Block): boolean {
  if (a.type !== b.type) return false;
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  const keys = new Set([...Object.keys(left), ...Object.keys(right)]);
  for (const key of keys) if (left[key] !== right[key]) return false;
  return true;
}
