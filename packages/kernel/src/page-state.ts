import type { Block, PageOptions } from "@mnote/contract";
import { type BlockRow, blockAttrs, type CommandRow, PAGE_COLUMNS, type PageRow, toBlock, toPage } from "./rows";
import type { SqlExecutor } from "./sql/driver";
import type { PageState } from "./types";
import { type EditUndoStep, undoBlockEdits } from "./block-edits";
import { searchText } from "./search-words";

/** How to take one command back: what the page looked like in the parts it changed. */
export type Undo =
  | { blocks: Block[] }
  | { truncateTo: number }
  | { title: string }
  | { options: PageOptions }
  | { state: PageState }
  | { blockEdits: EditUndoStep[] };

export async function readBlocks(db: SqlExecutor, documentId: string): Promise<Block[]> {
  const rows = await db.all<BlockRow>(
    `SELECT id, type, text, attrs FROM blocks WHERE document_id = ? ORDER BY position`,
    [documentId],
  );
  return rows.map(toBlock);
}

export async function readPageState(db: SqlExecutor, documentId: string): Promise<PageState | null> {
  const row = await db.get<PageRow>(`SELECT ${PAGE_COLUMNS} FROM pages WHERE id = ?`, [documentId]);
  if (!row) return null;
  const page = toPage(row);
  return { title: page.title, options: page.options, blocks: await readBlocks(db, documentId) };
}

export async function insertBlocks(db: SqlExecutor, documentId: string, blocks: Block[], firstPosition: number) {
  for (let i = 0; i < blocks.length; i++) {
    const block = blocks[i]!;
    await db.run(
      `INSERT INTO blocks (document_id, id, position, type, text, attrs, search_text) VALUES (?, ?, ?, ?, ?, ?, ?)`,
      [documentId, block.id, firstPosition + i, block.type, block.text, blockAttrs(block), searchText(block.text)],
    );
  }
}

export async function replaceBlocks(db: SqlExecutor, documentId: string, blocks: Block[]) {
  await db.run(`DELETE FROM blocks WHERE document_id = ?`, [documentId]);
  await insertBlocks(db, documentId, blocks, 0);
}

/** Walk one step back: apply an undo record to a page state held in memory. */
export function applyUndo(state: PageState, undo: Undo): PageState {
  if ("blocks" in undo) return { ...state, blocks: undo.blocks };
  if ("truncateTo" in undo) return { ...state, blocks: state.blocks.slice(0, undo.truncateTo) };
  if ("title" in undo) return { ...state, title: undo.title };
  if ("options" in undo) return { ...state, options: undo.options };
  if ("blockEdits" in undo) return { ...state, blocks: undoBlockEdits(state.blocks, undo.blockEdits) };
  return undo.state;
}

/**
 * The page just after `target` and just before it (decision 0030: a revert takes back exactly the changes between
 * the two), rebuilt by undoing, newest first, every command since. The one walk back: a revert of the whole command
 * restores `.before`, a revert of its changes takes back the difference (commands that did not bump the revision
 * store no undo, so `.before` is `.after` for them).
 */
export async function statesAround(
  db: SqlExecutor,
  target: CommandRow,
): Promise<{ before: PageState; after: PageState } | null> {
  const current = await readPageState(db, target.document_id!);
  if (!current) return null;
  const later = await db.all<{ undo: string | null }>(
    `SELECT undo FROM commands WHERE document_id = ? AND revision_after > ? AND revision_after > revision_before
     ORDER BY revision_after DESC`,
    [target.document_id, Number(target.revision_after)],
  );
  let after = current;
  for (const row of later) if (row.undo) after = applyUndo(after, JSON.parse(row.undo) as Undo);
  const before = target.undo ? applyUndo(after, JSON.parse(target.undo) as Undo) : after;
  return { before, after };
}
