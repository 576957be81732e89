import type { Block, Change } from "@mnote/contract";

/**
 * One line of the page as a proposal would leave it, for showing suggestions where they land (issue 22):
 * a block the proposal leaves alone, or a change at its place — an insert, an update (its new version), a
 * move (at its new place), and a delete where the block was (right after the block that preceded it).
 */
export type SuggestedRow =
  | { row: "same"; block: Block }
  | { row: "insert"; change: number; block: Block }
  | { row: "update"; change: number; block: Block; before: Block; moved: number | null }
  | { row: "move"; change: number; block: Block }
  | { row: "delete"; change: number; block: Block };

/**
 * The page `before` with a proposal's block `changes` laid into it, in the order of the page as it would be.
 * The changes' positions say where inserts, updates and moves land in the new page; every other slot takes
 * the next block the proposal leaves in place, in page order (a diff's moves are the blocks that left their
 * order, decision 0018). Page-wide changes (title, options) have no place here. Property-tested: without the
 * delete rows, the blocks are exactly the new page.
 */
export function suggestedPage(before: readonly Block[], changes: readonly Change[]): SuggestedRow[] {
  const deletedAt = new Map<string, number>();
  const placed = new Map<number, SuggestedRow>();
  const leaves = new Set<string>();
  let inserts = 0;
  changes.forEach((change, i) => {
    if (change.kind === "delete") {
      deletedAt.set(change.block.id, i);
      leaves.add(change.block.id);
    } else if (change.kind === "insert") {
      placed.set(change.index, { row: "insert", change: i, block: change.block });
      inserts++;
    } else if (change.kind === "move") {
      leaves.add(change.block.id);
      const there = placed.get(change.to);
      if (there?.row === "update") there.moved = i;
      else placed.set(change.to, { row: "move", change: i, block: change.block });
    }
  });
  changes.forEach((change, i) => {
    if (change.kind !== "update") return;
    const there = placed.get(change.index);
    placed.set(change.index, {
      row: "update",
      change: i,
      block: change.after,
      before: change.before,
      moved: there?.row === "move" ? there.change : null,
    });
    leaves.add(change.before.id);
  });
  const staying = before.filter((block) => !leaves.has(block.id) && !deletedAt.has(block.id));
  const length = before.length - deletedAt.size + inserts;
  const page: SuggestedRow[] = [];
  let next = 0;
  for (let slot = 0; slot < length; slot++) {
    const row = placed.get(slot) ?? (next < staying.length ? { row: "same" as const, block: staying[next++]! } : null);
    if (row) page.push(row);
  }
  // A deleted block reads right after the block that came before it on the page (first when none did), so a
  // replaced block reads as its delete, then what came in its place.
  const at = new Map(page.map((row, i) => [row.block.id, i]));
  const deletesBefore = new Map<number, SuggestedRow[]>();
  let previous = 0;
  before.forEach((block) => {
    const change = deletedAt.get(block.id);
    if (change === undefined) {
      const found = at.get(block.id);
      if (found !== undefined) previous = Math.max(previous, found + 1);
      return;
    }
    const follower = previous;
    const list = deletesBefore.get(follower) ?? [];
    list.push({ row: "delete", change, block });
    deletesBefore.set(follower, list);
  });
  const result: SuggestedRow[] = [];
  for (let i = 0; i <= page.length; i++) {
    result.push(...(deletesBefore.get(i) ?? []));
    if (i < page.length) result.push(page[i]!);
  }
  return result;
}
