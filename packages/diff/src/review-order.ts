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
 * The changes in reading order: page-wide ones first, then block changes top to bottom of the page as
 * it would be (the diff lists deletes first, so a delete at position 900 would otherwise come before a
 * change at 2), with a row for each stretch of untouched blocks between them.
 *
 * A delete has no place in the new page: it reads just before the block that followed it. Without moves
 * that block is found by counting (the k-th surviving block is the k-th block no insert made), so every
 * stretch is counted exactly; with moves the count would be a guess, so stretches that touch a delete
 * are left uncounted (no row) rather than misstated.
 */
export function reviewRows(changes: readonly Change[]): ReviewRow[] {
  const pageWide: number[] = [];
  const blockChanges: { change: number; at: number; occupies: boolean; exact: boolean; rank: number }[] = [];
  const deleted: number[] = [];
  const inserted: number[] = [];
  let moves = false;
  changes.forEach((change) => {
    if (change.kind === "delete") deleted.push(change.index);
    else if (change.kind === "insert") inserted.push(change.index);
    else if (change.kind === "move") moves = true;
  });
  deleted.sort((a, b) => a - b);
  inserted.sort((a, b) => a - b);

  changes.forEach((change, index) => {
    const position = changePosition(change);
    if (position === null) pageWide.push(index);
    else if (position.side === "after")
      blockChanges.push({ change: index, at: position.at, occupies: true, exact: true, rank: RANK[change.kind] ?? 1 });
    else
      blockChanges.push({
        change: index,
        at: afterSlot(position.at, deleted, inserted),
        occupies: false,
        exact: !moves,
        rank: 0,
      });
  });
  blockChanges.sort((a, b) => a.at - b.at || a.rank - b.rank || a.change - b.change);

  const rows: ReviewRow[] = pageWide.map((change) => ({ row: "change", change }));
  let previous: (typeof blockChanges)[number] | null = null;
  for (const current of blockChanges) {
    const exact = current.exact && (previous?.exact ?? true);
    const untouched = previous === null ? current.at : current.at - previous.at - (previous.occupies ? 1 : 0);
    if (exact && untouched > 0) rows.push({ row: "unchanged", blocks: untouched });
    rows.push({ row: "change", change: current.change });
    previous = current;
  }
  return rows;
}

/**
 * The position in the new page of the block that followed a deleted one (before index `at`): the
 * surviving blocks before it keep their order, and each insert at or before the slot pushes it down.
 */
function afterSlot(at: number, deleted: readonly number[], inserted: readonly number[]): number {
  let deletedBefore = 0;
  while (deletedBefore < deleted.length && deleted[deletedBefore]! < at) deletedBefore++;
  let slot = at - deletedBefore;
  for (const index of inserted) if (index <= slot) slot++;
  return slot;
}
