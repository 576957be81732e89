import type { Change } from "@mnote/contract";

/**
 * One line of a proposal under review: a change (its index in the preview, which is what a selection
 * names) or a stretch of blocks the proposal leaves alone between two changes.
 */
export type ReviewRow = { row: "change"; change: number } | { row: "unchanged"; blocks: number };

/**
 * Where a block change sits: deletes count in the page as it is (before), everything else in the page
 * as it would be (after). Title, options, summary and notes are about the whole page: null.
 */
export function changePosition(change: Change): { at: number; side: "before" | "after" } | null {
  switch (change.kind) {
    case "delete":
      return { at: change.index, side: "before" };
    case "insert":
    case "update":
      return { at: change.index, side: "after" };
    case "move":
      return { at: change.to, side: "after" };
    default:
      return null;
  }
}

/** At one position a delete reads first (the old block goes), then a move or insert, then an update. */
const RANK: Partial<Record<Change["kind"], number>> = { delete: 0, move: 1, insert: 1, update: 2 };

/**
 * The changes in reading order: page-wide ones first, then block changes top to bottom (the diff lists
 * deletes first, so a delete at position 900 would otherwise come before a change at 2), with a row
 * for each stretch of untouched blocks. A stretch is counted only between positions of the page as it
 * would be (inserts, updates, moves): there the blocks between are exactly the untouched ones; next to
 * a delete the two positions are of different pages and no honest count exists, so no row is made.
 */
export function reviewRows(changes: readonly Change[]): ReviewRow[] {
  const pageWide: number[] = [];
  const blockChanges: { change: number; at: number; side: "before" | "after"; rank: number }[] = [];
  changes.forEach((change, index) => {
    const position = changePosition(change);
    if (position === null) pageWide.push(index);
    else blockChanges.push({ change: index, ...position, rank: RANK[change.kind] ?? 1 });
  });
  blockChanges.sort((a, b) => a.at - b.at || a.rank - b.rank || a.change - b.change);

  const rows: ReviewRow[] = pageWide.map((change) => ({ row: "change", change }));
  let previous: { at: number; side: "before" | "after" } | null = null;
  for (const current of blockChanges) {
    const untouched =
      previous === null ? (current.side === "after" ? current.at : 0) : previous.side === "after" && current.side === "after" ? current.at - previous.at - 1 : 0;
    if (untouched > 0) rows.push({ row: "unchanged", blocks: untouched });
    rows.push({ row: "change", change: current.change });
    previous = current;
  }
  return rows;
}
