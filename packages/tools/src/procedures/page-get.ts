import {
  type Block,
  LIMITS,
  PAGE_CONTENT_IS_DATA,
  summarizeBlocks,
  type ToolArgs,
  type ToolResult,
} from "@mnote/contract";
import type { SqlKernel, LocatedBlock, PageRecord } from "@mnote/kernel";
import { blocksToMarkdownMeasured } from "@mnote/markdown";
import {
  type BlocksWindow,
  DEFAULT_READ_CACHE_BYTES,
  type Kept,
  type MarkdownWindow,
  ReadCache,
  readCacheOf,
  windowOf,
} from "../read-cache";
import { AppError } from "../app-error";
import { toolProcedure } from "../tool-procedure";

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
  throw new AppError(
    "mnote_tool_invalid_input",
    `args.cursor: not a cursor from a ${kind} read of this page (pass nextCursor with the same outline/search)`,
  );
}

async function indexOf(kernel: SqlKernel, page: PageRecord, id: string): Promise<number | null> {
  const [found] = await kernel.findBlocks(page.id, [id]);
  return found ? found.index : null;
}

async function startIndex(kernel: SqlKernel, page: PageRecord, args: GetArgs, kind: WindowKind): Promise<number> {
  if (args.cursor !== undefined) {
    const cursor = decodeCursor(args.cursor, kind);
    return (await indexOf(kernel, page, cursor.b)) ?? Math.min(cursor.i, page.blockCount);
  }
  if (args.startBlockId !== undefined) {
    const index = await indexOf(kernel, page, args.startBlockId);
    if (index === null)
      throw new AppError(
        "mnote_tool_invalid_input",
        `args.startBlockId: block ${args.startBlockId} is not on the page`,
      );
    return index;
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
 * Its JSON length comes with it, added up as it was written: JSON.stringify over the window's text again cost a
 * third of the Markdown read's extra time over the blocks form.
 */
function markdownWithinBudget(blocks: readonly Block[], used: number): MarkdownWindow {
  let count = blocks.length;
  for (;;) {
    const { text, jsonLength: size } = blocksToMarkdownMeasured(blocks.slice(0, count));
    if (count <= 1 || used + size <= LIMITS.readBudget) return { text, count };
    count = Math.max(1, Math.min(count - 1, Math.floor((count * (LIMITS.readBudget - used)) / size)));
  }
}

/** mnote.page.get — the page as the caller may see it, in windows of any page size, with the revision to base edits on. */
export const pageGet = toolProcedure("mnote.page.get").query(async (call, ctx) => {
  const { kernel } = ctx;
  const { page } = call.facts;
  const args = call.input.args;
  if (args.outline && args.search !== undefined)
    throw new AppError("mnote_tool_invalid_input", "args: ask for outline or search, not both");
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
  const reads = new PageReads(
    kernel,
    page,
    readCacheOf(kernel, ctx.settings.readCacheBytes ?? DEFAULT_READ_CACHE_BYTES),
  );
  const from = kind ? await startIndex(kernel, page, args, kind) : 0;
  if (args.includeBody) result.bodySummary = await reads.summary();
  if (kind) await readWindow(reads, page, args, kind, from, result);
  return { kind: "read", result };
});

/**
 * One call's reads of the page's body: the first rows are read at most once (the summary and a window from the top
 * both start with them), and what was read of this state of the page before is taken from the read cache.
 */
class PageReads {
  private first: Promise<LocatedBlock[]> | null = null;

  constructor(
    readonly kernel: SqlKernel,
    readonly page: PageRecord,
    readonly cache: ReadCache | null,
  ) {}

  /** The first SUMMARY_BLOCKS rows of the page. */
  firstRows(): Promise<LocatedBlock[]> {
    return (this.first ??= this.kernel.getBlockWindow(this.page.id, { from: 0, limit: SUMMARY_BLOCKS }));
  }

  summary(): Promise<string> {
    return this.kept("summary", async () => summarizeBlocks((await this.firstRows()).map((entry) => entry.block)));
  }

  /** A blocks window (see blockRows). */
  blocksWindow(from: number, limit: number, used: number): Promise<BlocksWindow> {
    return this.kept(`blocks\u0000${from}\u0000${limit}\u0000${used}`, () => blockRows(this, from, limit, used));
  }

  /**
   * The blocks window's Markdown (decision 0049): kept under the same state and window as the blocks it is made of,
   * so a repeated Markdown read costs what a repeated blocks read does.
   */
  markdownWindow(window: BlocksWindow, from: number, limit: number, used: number): Promise<MarkdownWindow> {
    return this.kept(`markdown\u0000${from}\u0000${limit}\u0000${used}`, async () =>
      markdownWithinBudget(window.blocks, used),
    );
  }

  /** What `read` reads of this page state, from the cache when this state was read so before. */
  private async kept<T extends Kept>(part: string, read: () => Promise<T>): Promise<T> {
    if (!this.cache) return read();
    const key = ReadCache.key(this.page, part);
    const kept = this.cache.get<T>(key);
    if (kept !== undefined) return kept;
    const value = await read();
    this.cache.set(key, value);
    return value;
  }
}

/**
 * A blocks window and the rows read for it, plus one row past the window when there is one. Rows are read in chunks
 * sized from the blocks already seen, so a window the 32 KB budget ends after 240 short blocks reads about that many
 * rows, not `limit + 1` (500) to send half of them (the read was most of a page.get's database time). Each block's
 * JSON, made to measure it against the budget, is kept with the window for the answer's writer (decision 0029).
 */
async function blockRows(reads: PageReads, from: number, limit: number, used: number): Promise<BlocksWindow> {
  const rows: LocatedBlock[] = [];
  const blocks: Block[] = [];
  const json: string[] = [];
  let size = used;
  let full = false;
  let want = Math.min(SUMMARY_BLOCKS, limit + 1);
  let at = from;
  // A window from the top starts with the page's first rows, read once for it and the summary: more than the
  // window can take is fine.
  let preRead = from === 0;
  while (!full && rows.length <= limit) {
    const asked = preRead ? SUMMARY_BLOCKS : want;
    const read = preRead
      ? await reads.firstRows()
      : await reads.kernel.getBlockWindow(reads.page.id, { from: at, limit: want });
    preRead = false;
    for (const row of read) {
      rows.push(row);
      if (full || blocks.length === limit) continue;
      // The same measure as withinBudget: the JSON the model receives, at least one block per window.
      const text = JSON.stringify(row.block);
      const entrySize = text.length + 1;
      if (blocks.length > 0 && size + entrySize > LIMITS.readBudget) full = true;
      else {
        blocks.push(row.block);
        json.push(text);
        size += entrySize;
      }
    }
    if (read.length < asked) break; // the end of the page
    at = read[read.length - 1]!.index + 1;
    const average = (size - used) / Math.max(1, blocks.length);
    const fits = Math.ceil(((LIMITS.readBudget - size) / Math.max(1, average)) * 1.1) + 1;
    want = Math.max(16, Math.min(fits, limit + 1 - rows.length));
  }
  return windowOf(rows, blocks, json);
}

async function readWindow(
  reads: PageReads,
  page: PageRecord,
  args: GetArgs,
  kind: WindowKind,
  from: number,
  result: GetResult,
) {
  const kernel = reads.kernel;
  const limit = args.limit ?? LIMITS.readWindowBlocks;
  const used = JSON.stringify(result).length + 200;
  let rows: readonly LocatedBlock[];
  let taken: readonly LocatedBlock[];
  if (kind === "blocks") {
    const window = await reads.blocksWindow(from, limit, used);
    rows = window.rows;
    if (args.format === "markdown") {
      const markdown = await reads.markdownWindow(window, from, limit, used);
      taken = rows.slice(0, markdown.count);
      result.markdown = markdown.text;
    } else {
      taken = rows.slice(0, window.blocks.length);
      result.blocks = window.blocks as Block[];
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
