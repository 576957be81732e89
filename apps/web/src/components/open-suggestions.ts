import type { Block, Change } from "@mnote/contract";
import { type Placement, type SuggestedRow, suggestedPage } from "@mnote/diff";

/** What the page view needs of one of a proposal's changes (the server's `ProposalChange`). */
export interface ChangeOnPage {
  index: number;
  state: "pending" | "conflict" | "applied" | "applied_with_edits" | "rejected";
  proposed: Change;
}

const isOpen = (change: ChangeOnPage) => change.state === "pending" || change.state === "conflict";

type Placed = { index: number; kind: "insert" | "move"; block: Block };

/**
 * The page as it is now with a proposal's still-open block changes (pending or in conflict) where they land
 * (decision 0030): each one by its anchor — an update, a delete or a move by its block's id, an insert or a move
 * after the block its placement names (an inserted one included) — so changes decided since, by anyone, and
 * writes since the proposal's base never shift another change off its block. Changes already decided are part of
 * the page (or left out) and show as the page does. Without placements (a proposal recorded before them), the
 * changes as planned on the base page are laid in by position (`suggestedPage`).
 */
export function openRows(
  blocks: readonly Block[],
  changes: readonly ChangeOnPage[],
  placements: readonly (Placement | null)[],
): SuggestedRow[] {
  const open = changes.filter(isOpen);
  const placedKinds = open.filter((c) => c.proposed.kind === "insert" || c.proposed.kind === "move");
  if (placedKinds.some((c) => !placements[c.index])) {
    // Positions planned on the base page; a row names its change by the proposal's index.
    return suggestedPage(
      blocks,
      open.map((c) => c.proposed),
    ).map((row) => (row.row === "same" ? row : { ...row, change: open[row.change]!.index }));
  }
  const byId = new Map(blocks.map((block) => [block.id, block]));
  const updates = new Map<string, { index: number; after: Block }>();
  const deletes = new Map<string, number>();
  const moving = new Set<string>();
  const after = new Map<string, Placed[]>();
  const place = (key: string, placed: Placed) => after.set(key, [...(after.get(key) ?? []), placed]);
  for (const { index, proposed } of open) {
    if (proposed.kind === "update") updates.set(proposed.before.id, { index, after: proposed.after });
    else if (proposed.kind === "delete") deletes.set(proposed.block.id, index);
    else if (proposed.kind === "insert" || proposed.kind === "move") {
      const placement = placements[index]!;
      const key = "end" in placement ? "\u0000end" : (placement.after ?? "\u0000start");
      if (proposed.kind === "move") moving.add(proposed.block.id);
      const block = proposed.kind === "move" ? (byId.get(proposed.block.id) ?? proposed.block) : proposed.block;
      place(key, { index, kind: proposed.kind, block });
    }
  }
  const rows: SuggestedRow[] = [];
  const emitted = new Set<number>();
  const emitAfter = (key: string) => {
    for (const placed of after.get(key) ?? []) {
      if (emitted.has(placed.index)) continue;
      emitted.add(placed.index);
      rows.push({ row: placed.kind, change: placed.index, block: placed.block });
      emitAfter(placed.block.id);
    }
  };
  emitAfter("\u0000start");
  for (const block of blocks) {
    if (!moving.has(block.id)) {
      const deleted = deletes.get(block.id);
      const update = updates.get(block.id);
      if (deleted !== undefined) rows.push({ row: "delete", change: deleted, block });
      else if (update)
        rows.push({ row: "update", change: update.index, block: update.after, before: block, moved: null });
      else rows.push({ row: "same", block });
    }
    emitAfter(block.id);
  }
  emitAfter("\u0000end");
  // What has no place on the page any more (its anchor block was deleted since): at the end, where it is still seen.
  for (const placed of [...after.values()].flat()) {
    if (emitted.has(placed.index)) continue;
    emitted.add(placed.index);
    rows.push({ row: placed.kind, change: placed.index, block: placed.block });
  }
  for (const [id, index] of deletes)
    if (!byId.has(id))
      rows.push({
        row: "delete",
        change: index,
        block: (open.find((c) => c.index === index)!.proposed as { block: Block }).block,
      });
  for (const [id, update] of updates) {
    if (byId.has(id)) continue;
    const proposed = open.find((c) => c.index === update.index)!.proposed as Extract<Change, { kind: "update" }>;
    rows.push({ row: "update", change: update.index, block: update.after, before: proposed.before, moved: null });
  }
  return rows;
}
