import type { Block, Change, Mark } from "@mnote/contract";
import { IdIndex } from "./id-index";
import { longestIncreasingSubsequence } from "./lis";

/** The kinds of `Change` that concern the body's blocks; title, options and notes are diffed elsewhere. */
export type BlockChange = Extract<Change, { kind: "insert" | "delete" | "update" | "move" }>;

/**
 * Block-level diff, matching blocks by id. Deletes come first (before order), then the
 * inserts, moves and updates in after order; a block that moved and changed gives both.
 */
export function diffBlocks(before: Block[], after: Block[]): Change[] {
  const matches = matchById(before, after);
  const inPlace = inPlaceFlags(matches.fromOf);
  const changes: BlockChange[] = [];

  before.forEach((block, index) => {
    if (!matches.survives[index]) changes.push({ kind: "delete", index, block });
  });

  after.forEach((block, index) => {
    const from = matches.fromOf[index]!;
    if (from < 0) {
      changes.push({ kind: "insert", index, block });
      return;
    }
    if (!inPlace[index]) changes.push({ kind: "move", from, to: index, block });
    if (matches.changed[index]) changes.push({ kind: "update", index, before: before[from]!, after: block });
  });

  return changes;
}

interface Matches {
  /** By after index: the before index of the block with the same id, or -1 for a new block. */
  fromOf: Int32Array;
  /** By after index: 1 when the matched before block differs. */
  changed: Uint8Array;
  /** By before index: 1 when the block is still in `after`. */
  survives: Uint8Array;
}

/**
 * Matches and compares in one pass over `after`: at 10,000 blocks the cost is in reaching
 * the blocks in memory, so each is visited once here and later steps read only these arrays.
 */
function matchById(before: readonly Block[], after: readonly Block[]): Matches {
  const index = new IdIndex(before);
  const matches: Matches = {
    fromOf: new Int32Array(after.length),
    changed: new Uint8Array(after.length),
    survives: new Uint8Array(before.length),
  };
  after.forEach((block, i) => {
    const from = index.get(block.id);
    matches.fromOf[i] = from;
    if (from < 0) return;
    matches.survives[from] = 1;
    if (!sameBlock(before[from]!, block)) matches.changed[i] = 1;
  });
  return matches;
}

/**
 * Flags, by after index, the common blocks that count as staying put: the longest run whose
 * before positions still increase in after order. Every other common block is reported as a
 * move, so the panel shows the fewest moves that explain the new order.
 */
function inPlaceFlags(fromOf: Int32Array): Uint8Array {
  // Plain loops: V8 does not inline callbacks of typed-array methods, and this runs per block.
  const afterPositions: number[] = [];
  const common: number[] = [];
  for (let index = 0; index < fromOf.length; index++) {
    const from = fromOf[index]!;
    if (from < 0) continue;
    afterPositions.push(index);
    common.push(from);
  }

  const inPlace = new Uint8Array(fromOf.length);
  for (const i of longestIncreasingSubsequence(common)) inPlace[afterPositions[i]!] = 1;
  return inPlace;
}

/**
 * Compares every field rather than a fixed list so a field added to a block type later
 * still shows up as an update instead of being silently dropped. Loops over keys without
 * building arrays: this runs once per common block, and garbage at 10,000 blocks shows.
 */
export function sameBlock(a: Block, b: Block): boolean {
  if (a === b) return true;
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  let fields = 0;
  for (const key in left) {
    if (left[key] !== right[key] && !(key === "marks" && sameMarks(left[key], right[key]))) return false;
    fields++;
  }
  for (const _ in right) fields--;
  return fields === 0;
}

/** Two blocks' marks (arrays of spans, decision 0026) are the same when every span is. */
export function sameMarks(a: unknown, b: unknown): boolean {
  if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i] as Mark;
    const y = b[i] as Mark;
    if (x.type !== y.type || x.start !== y.start || x.end !== y.end || x.href !== y.href) return false;
  }
  return true;
}
