import type { Block, Change } from "@mnote/contract";
import { longestIncreasingSubsequence } from "./lis";

/** The kinds of `Change` that concern the body's blocks; title, options and notes are diffed elsewhere. */
export type BlockChange = Extract<Change, { kind: "insert" | "delete" | "update" | "move" }>;

/**
 * Block-level diff, matching blocks by id. Deletes come first (before order), then the
 * inserts, moves and updates in after order; a block that moved and changed gives both.
 */
export function diffBlocks(before: Block[], after: Block[]): Change[] {
  // One id map for the whole diff: at 10,000 blocks building a Map costs more than
  // everything else, so the after side is matched through `fromOf` rather than its own Map.
  const fromOf = beforePositions(before, after);
  const inPlace = inPlaceFlags(fromOf);
  const changes: BlockChange[] = [];

  const survives = new Uint8Array(before.length);
  for (const from of fromOf) if (from >= 0) survives[from] = 1;
  before.forEach((block, index) => {
    if (!survives[index]) changes.push({ kind: "delete", index, block });
  });

  after.forEach((block, index) => {
    const from = fromOf[index]!;
    if (from < 0) {
      changes.push({ kind: "insert", index, block });
      return;
    }
    if (!inPlace[index]) changes.push({ kind: "move", from, to: index, block });
    const old = before[from]!;
    if (!sameBlock(old, block)) changes.push({ kind: "update", index, before: old, after: block });
  });

  return changes;
}

/** For each after block, the index of the before block with its id, or -1 for a new block. */
function beforePositions(before: readonly Block[], after: readonly Block[]): Int32Array {
  const index = new Map<string, number>();
  before.forEach((block, i) => index.set(block.id, i));
  return Int32Array.from(after, (block) => index.get(block.id) ?? -1);
}

/**
 * Flags, by after index, the common blocks that count as staying put: the longest run whose
 * before positions still increase in after order. Every other common block is reported as a
 * move, so the panel shows the fewest moves that explain the new order.
 */
function inPlaceFlags(fromOf: Int32Array): Uint8Array {
  const afterPositions: number[] = [];
  const common: number[] = [];
  fromOf.forEach((from, index) => {
    if (from < 0) return;
    afterPositions.push(index);
    common.push(from);
  });

  const inPlace = new Uint8Array(fromOf.length);
  for (const i of longestIncreasingSubsequence(common)) inPlace[afterPositions[i]!] = 1;
  return inPlace;
}

/**
 * Compares every field rather than a fixed list so a field added to a block type later
 * still shows up as an update instead of being silently dropped. Loops over keys without
 * building arrays: this runs once per common block, and garbage at 10,000 blocks shows.
 */
function sameBlock(a: Block, b: Block): boolean {
  if (a === b) return true;
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  let fields = 0;
  for (const key in left) {
    if (left[key] !== right[key]) return false;
    fields++;
  }
  for (const _ in right) fields--;
  return fields === 0;
}
