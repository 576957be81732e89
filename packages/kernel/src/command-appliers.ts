/**
 * The command appliers: how each kernel command changes the page inside the write transaction, and
 * what it records to take itself back. They run after the page row is locked and the checks passed.
 */
import { type Block, DEFAULT_PAGE_OPTIONS } from "@mnote/contract";
import { type BlockEditOperation, blockIdsNamed, simulateBlockEdits } from "./block-edits";
import { applyCommentCommand } from "./comments";
import { newId } from "./ids";
import { insertBlocks, readBlocks, readPageState, replaceBlocks, statesAround, type Undo } from "./page-state";
import { findBlocks } from "./reads";
import { blockAttrs, type CommandRow } from "./rows";
import { type SqlExecutor, UniqueViolation } from "./sql/driver";
import type { KernelCommand, PageRecord, TokenHolder } from "./types";
import { searchText } from "./search-words";

/** A command that cannot apply to the page as it is; the transaction rolls back. */
export class CommandRejected extends Error {}
/** An append met a block id already on the page (the write is rolled back). */
export class BlockIdTaken extends Error {}

export interface AppliedCommand {
  bumpsRevision: boolean;
  result: Record<string, unknown>;
  undo: Undo | null;
  /** The page's new block count, when the command changed the body (written with the revision). */
  blockCount?: number;
  /** The blocks an edit's operations name, as it found them (for its audit detail, `AppliedFacts`). */
  namedBlocks?: readonly Block[];
}

export async function applyCommand(
  tx: SqlExecutor,
  page: PageRecord,
  command: KernelCommand,
  context: {
    commandId: string;
    actorId: string;
    holder: TokenHolder | null;
    tokenId: string | null;
    now: string;
    blockCount: number;
  },
): Promise<AppliedCommand> {
  switch (command.name) {
    case "page.body.save":
      return saveBody(tx, page, command.mode, command.blocks, context.blockCount);
    case "page.body.edit":
      return editBody(tx, page, command.operations, context.blockCount);
    case "page.head.updateTitle":
      await tx.run(`UPDATE pages SET title = ?, search_title = ? WHERE id = ?`, [
        command.title,
        searchText(command.title),
        page.id,
      ]);
      return { bumpsRevision: true, result: {}, undo: { title: page.title } };
    case "page.layout.updateOptions": {
      const options = { ...DEFAULT_PAGE_OPTIONS, ...page.options, ...command.options };
      await tx.run(`UPDATE pages SET options = ? WHERE id = ?`, [JSON.stringify(options), page.id]);
      return { bumpsRevision: true, result: {}, undo: { options: page.options } };
    }
    case "artifact.summary.upsert":
      return upsertSummary(tx, page, command.summary, context);
    case "artifact.aiNote.create": {
      const nodeId = newId("node");
      const edgeId = newId("edge");
      await tx.run(
        `INSERT INTO nodes (id, workspace_id, document_id, kind, content, created_by, command_id, created_at, updated_at)
         VALUES (?, ?, ?, 'ai_note', ?, ?, ?, ?, ?)`,
        [
          nodeId,
          page.workspaceId,
          page.id,
          command.content,
          context.actorId,
          context.commandId,
          context.now,
          context.now,
        ],
      );
      await insertEdge(tx, edgeId, page, nodeId, context.now);
      return { bumpsRevision: false, result: { nodeId, edgeId }, undo: null };
    }
    case "comment.create":
    case "comment.thread.setResolved":
      return applyCommentCommand(tx, page, command, context);
    case "page.create":
      return createPage(tx, page, command);
    case "page.revert":
      if (command.removePage) return removeCreatedPage(tx, page, command.targetCommandId, context.now);
      if (command.operations || command.title !== undefined || command.options)
        return revertChanges(tx, page, command, context.blockCount);
      return revertPage(tx, page, command.targetCommandId);
  }
}

/** `before` is the page's block count, from the page row the transaction already read (and, on PostgreSQL, locked). */
async function saveBody(
  tx: SqlExecutor,
  page: PageRecord,
  mode: "replace" | "append",
  blocks: Block[],
  before: number,
) {
  if (mode === "append") {
    try {
      await insertBlocks(tx, page.id, blocks, before);
    } catch (error) {
      if (error instanceof UniqueViolation) throw new BlockIdTaken();
      throw error;
    }
    return {
      bumpsRevision: true,
      result: {},
      undo: { truncateTo: before } satisfies Undo,
      blockCount: before + blocks.length,
    };
  }
  const previous = await readBlocks(tx, page.id);
  try {
    await replaceBlocks(tx, page.id, blocks);
  } catch (error) {
    if (error instanceof UniqueViolation) throw new CommandRejected("content repeats a block id");
    throw error;
  }
  return { bumpsRevision: true, result: {}, undo: { blocks: previous } satisfies Undo, blockCount: blocks.length };
}

/**
 * Precise edits: read the blocks the operations name, work the edit out on them alone
 * (`simulateBlockEdits`, the same code the dry run shows), then write each step. Other blocks are
 * touched only by the position shifts behind an insert, delete or move, one statement each.
 */
async function editBody(
  tx: SqlExecutor,
  page: PageRecord,
  operations: BlockEditOperation[],
  before: number,
): Promise<AppliedCommand> {
  const located = await findBlocks(tx, page.id, blockIdsNamed(operations));
  const edit = simulateBlockEdits(located, before, operations);
  let count = before;
  const shift = (by: number, from: number, to?: number) =>
    to === undefined
      ? tx.run(`UPDATE blocks SET position = position + ? WHERE document_id = ? AND position >= ?`, [by, page.id, from])
      : tx.run(`UPDATE blocks SET position = position + ? WHERE document_id = ? AND position >= ? AND position <= ?`, [
          by,
          page.id,
          from,
          to,
        ]);
  for (const step of edit.steps) {
    switch (step.kind) {
      case "update":
        await tx.run(
          `UPDATE blocks SET type = ?, text = ?, attrs = ?, search_text = ? WHERE document_id = ? AND id = ?`,
          [
            step.block.type,
            step.block.text,
            blockAttrs(step.block),
            searchText(step.block.text),
            page.id,
            step.block.id,
          ],
        );
        break;
      case "insert":
        if (step.index < count) await shift(step.blocks.length, step.index);
        await insertBlocks(tx, page.id, step.blocks, step.index);
        count += step.blocks.length;
        break;
      case "delete":
        await tx.run(`DELETE FROM blocks WHERE document_id = ? AND id = ?`, [page.id, step.id]);
        if (step.index < count - 1) await shift(-1, step.index + 1);
        count -= 1;
        break;
      case "move":
        if (step.to < step.from) await shift(1, step.to, step.from - 1);
        else await shift(-1, step.from + 1, step.to);
        await tx.run(`UPDATE blocks SET position = ? WHERE document_id = ? AND id = ?`, [step.to, page.id, step.id]);
        break;
    }
  }
  return {
    bumpsRevision: true,
    result: { insertedBlockIds: edit.insertedBlockIds },
    undo: { blockEdits: edit.undo },
    blockCount: edit.blockCount,
    namedBlocks: located.map((entry) => entry.block),
  };
}

async function upsertSummary(
  tx: SqlExecutor,
  page: PageRecord,
  summary: string,
  context: { commandId: string; actorId: string; now: string },
): Promise<AppliedCommand> {
  const existing = await tx.get<{ id: string }>(`SELECT id FROM nodes WHERE document_id = ? AND kind = 'summary'`, [
    page.id,
  ]);
  let nodeId = existing?.id;
  if (nodeId) {
    await tx.run(`UPDATE nodes SET content = ?, updated_at = ?, command_id = ? WHERE id = ?`, [
      summary,
      context.now,
      context.commandId,
      nodeId,
    ]);
  } else {
    nodeId = newId("node");
    await tx.run(
      `INSERT INTO nodes (id, workspace_id, document_id, kind, content, created_by, command_id, created_at, updated_at)
       VALUES (?, ?, ?, 'summary', ?, ?, ?, ?, ?)`,
      [nodeId, page.workspaceId, page.id, summary, context.actorId, context.commandId, context.now, context.now],
    );
  }
  const edge = await tx.get<{ id: string }>(
    `SELECT id FROM edges WHERE from_document_id = ? AND to_node_id = ? AND kind = 'reference'`,
    [page.id, nodeId],
  );
  const edgeId = edge?.id ?? newId("edge");
  if (!edge) await insertEdge(tx, edgeId, page, nodeId, context.now);
  return { bumpsRevision: false, result: { nodeId, edgeId, created: !existing }, undo: null };
}

async function insertEdge(tx: SqlExecutor, edgeId: string, page: PageRecord, nodeId: string, now: string) {
  await tx.run(
    `INSERT INTO edges (id, workspace_id, from_document_id, to_node_id, kind, created_at) VALUES (?, ?, ?, ?, 'reference', ?)`,
    [edgeId, page.workspaceId, page.id, nodeId, now],
  );
}

async function revertPage(tx: SqlExecutor, page: PageRecord, targetCommandId: string): Promise<AppliedCommand> {
  const target = await tx.get<CommandRow>(`SELECT * FROM commands WHERE id = ?`, [targetCommandId]);
  if (!target || target.document_id !== page.id) throw new CommandRejected("no such command on this page");
  const restored = (await statesAround(tx, target))?.before;
  const current = await readPageState(tx, page.id);
  if (!restored || !current) throw new CommandRejected("the page state before that command cannot be rebuilt");
  await tx.run(`UPDATE pages SET title = ?, search_title = ?, options = ?, block_count = ? WHERE id = ?`, [
    restored.title,
    searchText(restored.title),
    JSON.stringify(restored.options),
    restored.blocks.length,
    page.id,
  ]);
  await replaceBlocks(tx, page.id, restored.blocks);
  return { bumpsRevision: true, result: { targetCommandId }, undo: { state: current } };
}

/**
 * A revert of one command's changes (decision 0030): the operations, title and options its merge planned on the page
 * as it is now, in one step. The page's state before is its undo (a revert is itself revertable by a person's undo
 * rule, and `statesAround` walks over it like over any command).
 */
async function revertChanges(
  tx: SqlExecutor,
  page: PageRecord,
  command: Extract<KernelCommand, { name: "page.revert" }>,
  before: number,
): Promise<AppliedCommand> {
  const target = await tx.get<{ document_id: string }>(`SELECT document_id FROM commands WHERE id = ?`, [
    command.targetCommandId,
  ]);
  if (!target || target.document_id !== page.id) throw new CommandRejected("no such command on this page");
  const current = await readPageState(tx, page.id);
  if (!current) throw new CommandRejected("the page is gone");
  let blockCount = before;
  if (command.operations && command.operations.length > 0) {
    blockCount = (await editBody(tx, page, command.operations, before)).blockCount ?? before;
  }
  if (command.title !== undefined)
    await tx.run(`UPDATE pages SET title = ?, search_title = ? WHERE id = ?`, [
      command.title,
      searchText(command.title),
      page.id,
    ]);
  if (command.options) {
    const options = { ...DEFAULT_PAGE_OPTIONS, ...page.options, ...command.options };
    await tx.run(`UPDATE pages SET options = ? WHERE id = ?`, [JSON.stringify(options), page.id]);
  }
  return {
    bumpsRevision: true,
    result: { targetCommandId: command.targetCommandId },
    undo: { state: current },
    blockCount,
  };
}

/**
 * Fills the page row the write transaction inserted (revision 0, no blocks). A row already past revision 0 is a page
 * an earlier call made under this key, whose key record has expired: refused, never written over.
 */
async function createPage(
  tx: SqlExecutor,
  page: PageRecord,
  command: Extract<KernelCommand, { name: "page.create" }>,
): Promise<AppliedCommand> {
  if (page.revision !== 0) throw new CommandRejected("a page was already created under this idempotency key");
  try {
    await insertBlocks(tx, page.id, command.blocks, 0);
  } catch (error) {
    if (error instanceof UniqueViolation) throw new CommandRejected("the page's blocks repeat a block id");
    throw error;
  }
  if (command.isPrivate) {
    await tx.run(`INSERT INTO page_grants (document_id, user_id, access) VALUES (?, ?, 'write')`, [
      page.id,
      command.ownerId,
    ]);
  }
  // Before the create, the page was nothing: an empty body, the default options (what a walk back rebuilds).
  const nothing: Undo = { state: { title: "", options: { ...DEFAULT_PAGE_OPTIONS }, blocks: [] } };
  return {
    bumpsRevision: true,
    result: { documentId: page.id },
    undo: nothing,
    blockCount: command.blocks.length,
  };
}

/**
 * The revert of a `page.create`: the page goes again (its row stays, marked removed, for the commands and the trail
 * that name it). Refused once anything else — an edit, a comment, an artifact — was written to the page: that work
 * is someone's, and removing the page would take it too.
 */
async function removeCreatedPage(
  tx: SqlExecutor,
  page: PageRecord,
  targetCommandId: string,
  now: string,
): Promise<AppliedCommand> {
  const target = await tx.get<{ document_id: string; name: string }>(
    `SELECT document_id, name FROM commands WHERE id = ?`,
    [targetCommandId],
  );
  if (!target || target.document_id !== page.id || target.name !== "page.create")
    throw new CommandRejected("no such page creation on this page");
  const other = await tx.get<{ id: string }>(`SELECT id FROM commands WHERE document_id = ? AND id <> ? LIMIT 1`, [
    page.id,
    targetCommandId,
  ]);
  if (other) throw new CommandRejected(CREATED_PAGE_CHANGED);
  const current = await readPageState(tx, page.id);
  await tx.run(`DELETE FROM blocks WHERE document_id = ?`, [page.id]);
  await tx.run(`DELETE FROM page_grants WHERE document_id = ?`, [page.id]);
  await tx.run(`UPDATE pages SET removed_at = ? WHERE id = ?`, [now, page.id]);
  return {
    bumpsRevision: true,
    result: { targetCommandId, removed: true },
    undo: current ? { state: current } : null,
    blockCount: 0,
  };
}

/** Why a created page cannot be removed any more (the panel says it before asking, the kernel when writing). */
export const CREATED_PAGE_CHANGED =
  "the page was written to since it was created (an edit, a comment or an artifact): it cannot be removed by a revert";
