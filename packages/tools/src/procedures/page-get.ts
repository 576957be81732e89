import {
  type Block,
  LIMITS,
  PAGE_CONTENT_IS_DATA,
  pageGetTool,
  summarizeBlocks,
  type ToolArgs,
  type ToolInput,
  type ToolResult,
} from "@mnote/contract";
import type { KernelAdapter, LocatedBlock, PageRecord } from "@mnote/kernel";
import { blocksToMarkdown } from "@mnote/markdown";
import { successEnvelope } from "../call-state";
import { fail } from "../app-error";
import { contractToolSpec } from "../tool-spec";
import { checkedCall, toolProcedure } from "../tool-procedure";

export const pageGetMeta = contractToolSpec(pageGetTool.name);

type GetArgs = ToolArgs<"mnote.page.get">;
type GetResult = ToolResult<"mnote.page.get">;
type WindowKind = "blocks" | "outline" | "search";

/**
 * Blocks read for bodySummary (its 280 characters come from the first blocks, not the whole page), and the first read of
 * a blocks window (later reads are sized from the blocks it found, see blockRows).
 */
const SUMMARY_BLOCKS = 64;
const OUTLINE_TEXT = 120;
const SNIPPET_BEFORE = 60;
const SNIPPET_AFTER = 100;

/**
 * Where the next window starts: the kind of read, the id of its first block, and its index as a
 * fallback when that block has gone. Block ids are stable, so reading on after an edit continues at
 * the same block; the answer's revision says which page the window was read from.
 */
interface Cursor {
  k: WindowKind;
  b: string;
  i: number;
}
const encodeCursor = (cursor: Cursor) => Buffer.from(JSON.stringify(cursor)).toString("base64url");
function decodeCursor(text: string, kind: WindowKind): Cursor {
  try {
    const cursor = JSON.parse(Buffer.from(text, "base64url").toString("utf8")) as Cursor;
    if (cursor.k === kind && typeof cursor.b === "string" && Number.isInteger(cursor.i) && cursor.i >= 0) return cursor;
  } catch {
    // fall through: not a cursor this tool made
  }
  return fail(
    "mnote_tool_invalid_input",
    `args.cursor: not a cursor from a ${kind} read of this page (pass nextCursor with the same outline/search)`,
  );
}

async function indexOf(kernel: KernelAdapter, page: PageRecord, id: string): Promise<number | null> {
  const [found] = await kernel.findBlocks(page.id, [id]);
  return found ? found.index : null;
}

async function startIndex(kernel: KernelAdapter, page: PageRecord, args: GetArgs, kind: WindowKind): Promise<number> {
  if (args.cursor !== undefined) {
    const cursor = decodeCursor(args.cursor, kind);
    return (await indexOf(kernel, page, cursor.b)) ?? Math.min(cursor.i, page.blockCount);
  }
  if (args.startBlockId !== undefined) {
    const index = await indexOf(kernel, page, args.startBlockId);
    if (index === null)
      fail("mnote_tool_invalid_input", `args.startBlockId: block ${args.startBlockId} is not on the page`);
    return index!;
  }
  return 0;
}

function snippet(text: string, term: string): string {
  const at = text.toLowerCase().indexOf(term.toLowerCase());
  const from = Math.max(0, at - SNIPPET_BEFORE);
  const to = Math.min(text.length, Math.max(at, 0) + term.length + SNIPPET_AFTER);
  return `${from > 0 ? "…" : ""}${text.slice(from, to)}${to < text.length ? "…" : ""}`;
}

/**
 * Takes entries while the answer stays within the budget (at least one, so a read always moves on;
 * one block may hold up to 20,000 characters). Sizes are counted as the JSON the model receives.
 */
function withinBudget<T>(entries: T[], used: number): T[] {
  const taken: T[] = [];
  let size = used;
  for (const entry of entries) {
    const entrySize = JSON.stringify(entry).length + 1;
    if (taken.length > 0 && size + entrySize > LIMITS.readBudget) break;
    taken.push(entry);
    size += entrySize;
  }
  return taken;
}

/**
 * The window's blocks as Markdown (decision 0026): the same blocks the blocks form takes, serialized
 * as one tree in one pass. Markdown is almost always shorter than the JSON of the blocks; when escaping
 * makes it longer than the budget, blocks come off the end (at least one stays) and it is serialized again.
 */
function markdownWithinBudget(blocks: Block[], used: number): { text: string; count: number } {
  let count = blocks.length;
  for (;;) {
    const text = blocksToMarkdown(blocks.slice(0, count));
    const size = JSON.stringify(text).length;
    if (count <= 1 || used + size <= LIMITS.readBudget) return { text, count };
    count = Math.max(1, Math.min(count - 1, Math.floor((count * (LIMITS.readBudget - used)) / size)));
  }
}

/** mnote.page.get — the page as the caller may see it, in windows of any page size, with the revision to base edits on. */
export const pageGet = toolProcedure<ToolInput<"mnote.page.get">>(pageGetMeta).query(async ({ ctx }) => {
  const { kernel, call, input, page } = checkedCall(ctx);
  const args = input.args as GetArgs;
  if (args.outline && args.search !== undefined)
    fail("mnote_tool_invalid_input", "args: ask for outline or search, not both");
  const kind: WindowKind | null = args.outline
    ? "outline"
    : args.search !== undefined
      ? "search"
      : args.includeBlocks
        ? "blocks"
        : null;
  const result: GetResult = {
    documentId: page.id,
    workspaceId: page.workspaceId,
    title: page.title,
    revision: page.revision,
    contentNotice: PAGE_CONTENT_IS_DATA,
  };
  if (args.includeOptions) result.pageOptions = page.options;
  const from = kind ? await startIndex(kernel, page, args, kind) : 0;
  // A blocks window from the top starts with the rows the summary is made of: read them once for both.
  const first =
    args.includeBody || (kind === "blocks" && from === 0)
      ? await kernel.getBlockWindow(page.id, { from: 0, limit: SUMMARY_BLOCKS })
      : null;
  if (args.includeBody) result.bodySummary = summarizeBlocks(first!.map((entry) => entry.block));
  if (kind) await readWindow(kernel, page, args, kind, from, from === 0 ? first : null, result);
  return successEnvelope(call, result, "read", null);
});

/**
 * A blocks window and the rows read for it, plus one row past the window when there is one. Rows are read in chunks
 * sized from the blocks already seen, so a window the 32 KB budget ends after 240 short blocks reads about that many
 * rows, not `limit + 1` (500) to send half of them (the read was most of a page.get's database time).
 */
async function blockRows(
  kernel: KernelAdapter,
  page: PageRecord,
  from: number,
  limit: number,
  used: number,
  firstRows: LocatedBlock[] | null,
): Promise<{ rows: LocatedBlock[]; blocks: Block[] }> {
  const rows: LocatedBlock[] = [];
  const blocks: Block[] = [];
  let size = used;
  let full = false;
  let want = Math.min(SUMMARY_BLOCKS, limit + 1);
  let at = from;
  // The page's first rows, when the caller already read them (see pageGet): more than the window can take is fine.
  let preRead = firstRows;
  while (!full && rows.length <= limit) {
    const asked = preRead ? SUMMARY_BLOCKS : want;
    const read = preRead ?? (await kernel.getBlockWindow(page.id, { from: at, limit: want }));
    preRead = null;
    for (const row of read) {
      rows.push(row);
      if (full || blocks.length === limit) continue;
      // The same measure as withinBudget: the JSON the model receives, at least one block per window.
      const entrySize = JSON.stringify(row.block).length + 1;
      if (blocks.length > 0 && size + entrySize > LIMITS.readBudget) full = true;
      else {
        blocks.push(row.block);
        size += entrySize;
      }
    }
    if (read.length < asked) break; // the end of the page
    at = read[read.length - 1]!.index + 1;
    const average = (size - used) / Math.max(1, blocks.length);
    const fits = Math.ceil(((LIMITS.readBudget - size) / Math.max(1, average)) * 1.1) + 1;
    want = Math.max(16, Math.min(fits, limit + 1 - rows.length));
  }
  return { rows, blocks };
}

async function readWindow(
  kernel: KernelAdapter,
  page: PageRecord,
  args: GetArgs,
  kind: WindowKind,
  from: number,
  firstRows: LocatedBlock[] | null,
  result: GetResult,
) {
  const limit = args.limit ?? LIMITS.readWindowBlocks;
  const used = JSON.stringify(result).length + 200;
  let rows: LocatedBlock[];
  let taken: LocatedBlock[];
  if (kind === "blocks") {
    const window = await blockRows(kernel, page, from, limit, used, firstRows);
    rows = window.rows;
    if (args.format === "markdown") {
      const markdown = markdownWithinBudget(window.blocks, used);
      taken = rows.slice(0, markdown.count);
      result.markdown = markdown.text;
    } else {
      taken = rows.slice(0, window.blocks.length);
      result.blocks = window.blocks;
    }
  } else if (kind === "outline") {
    // One row past the window: the next heading closes the last entry's count, and any row says there is more.
    rows = await kernel.getBlockWindow(page.id, { from, limit: limit + 1, only: { kind: "headings" } });
    const entries = rows.slice(0, limit).map((row, i) => ({
      id: row.block.id,
      index: row.index,
      level: (row.block as Extract<Block, { type: "heading" }>).level,
      text: row.block.text.length > OUTLINE_TEXT ? `${row.block.text.slice(0, OUTLINE_TEXT - 1)}…` : row.block.text,
      blocksUnder: (rows[i + 1]?.index ?? page.blockCount) - row.index - 1,
    }));
    result.outline = withinBudget(entries, used);
    taken = rows.slice(0, result.outline.length);
  } else {
    rows = await kernel.getBlockWindow(page.id, {
      from,
      limit: limit + 1,
      only: { kind: "search", text: args.search! },
    });
    const matches = rows.slice(0, limit).map((row) => ({
      id: row.block.id,
      index: row.index,
      type: row.block.type,
      snippet: snippet(row.block.text, args.search!),
    }));
    result.matches = withinBudget(matches, used);
    taken = rows.slice(0, result.matches.length);
  }
  const next = rows[taken.length];
  result.window = {
    start: taken[0]?.index ?? from,
    count: taken.length,
    totalBlocks: page.blockCount,
    nextCursor: next ? encodeCursor({ k: kind, b: next.block.id, i: next.index }) : null,
  };
}
