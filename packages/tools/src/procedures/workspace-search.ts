import { LIMITS, PAGE_CONTENT_IS_DATA, SEARCH_MATCH_MARKS, type ToolResult } from "@mnote/contract";
import { type SearchHitRow, type SearchPosition, searchWords, StaleSearchCursor } from "@mnote/kernel";
import { z } from "zod";
import { AppError } from "../app-error";
import { readersOf } from "../middleware/checks";
import { toolProcedure } from "../tool-procedure";

/**
 * mnote.workspace.search — the workspace's titles and block text, on the pages the caller (and the person who asked,
 * in an Ask Hermes run) may read (decision 0045). The kernel keeps to those pages inside its query; this only turns
 * its rows into hits with snippets and the window's cursor.
 */
export const workspaceSearch = toolProcedure("mnote.workspace.search").workspaceQuery(async (call, ctx) => {
  const { workspaceId, args } = call.input;
  const words = searchWords(args.query);
  if (words.length === 0)
    throw new AppError("mnote_tool_invalid_input", "args.query: no word to search for (only spaces or punctuation)");
  const limit = args.limit ?? LIMITS.searchHitsByDefault;
  const rows = await ctx.kernel
    .searchWorkspace({
      workspaceId,
      readers: readersOf(call),
      words,
      documentIds: args.documentIds ?? null,
      after: args.cursor === undefined ? null : decodeCursor(args.cursor),
      // One more than the window: whether there is a next window, without counting anything.
      limit: limit + 1,
    })
    .catch((error: unknown) => {
      // The same words whether the cursor's block was rewritten, deleted or never readable: nothing about the page.
      if (error instanceof StaleSearchCursor)
        throw new AppError(
          "mnote_tool_invalid_input",
          "args.cursor: its last hit was changed or is no longer readable; search again without a cursor",
        );
      throw error;
    });
  const window = rows.slice(0, limit);
  const last = window.at(-1);
  const result: ToolResult<"mnote.workspace.search"> = {
    workspaceId,
    contentNotice: PAGE_CONTENT_IS_DATA,
    hits: window.map((row) => ({
      documentId: row.documentId,
      title: row.title,
      blockId: row.blockId,
      snippet: snippetOf(row.text, words),
    })),
    nextCursor: rows.length > limit && last ? encodeCursor(last) : null,
  };
  return { kind: "read", result };
});

/**
 * A cursor names the last hit of its window (its page, and its block's id), nothing about pages the caller may not
 * read and no engine row number (the kernel resolves the block among readable ones): the same window ends in the
 * same cursor whatever else the workspace holds.
 */
const CursorSchema = z.union([
  z.strictObject({ t: z.literal(1), d: z.string().min(1) }),
  z.strictObject({ b: z.literal(1), d: z.string().min(1), k: z.string().min(1) }),
]);

function encodeCursor(hit: SearchHitRow): string {
  const cursor = hit.blockId === null ? { t: 1, d: hit.documentId } : { b: 1, d: hit.documentId, k: hit.blockId };
  return Buffer.from(JSON.stringify(cursor)).toString("base64url");
}

function decodeCursor(text: string): SearchPosition {
  try {
    const parsed = CursorSchema.safeParse(JSON.parse(Buffer.from(text, "base64url").toString("utf8")));
    if (parsed.success) {
      const cursor = parsed.data;
      return "t" in cursor
        ? { phase: "title", documentId: cursor.d }
        : { phase: "block", documentId: cursor.d, blockId: cursor.k };
    }
  } catch {
    // fall through: not a cursor this tool made
  }
  throw new AppError(
    "mnote_tool_invalid_input",
    "args.cursor: not a cursor from mnote.workspace.search (pass nextCursor)",
  );
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/**
 * The text around the first match, every matched word marked. Matching here is case-insensitive on the same words
 * the index matched; a hit whose words the index found only after its tokenizer's folding (an accent) is shown
 * from its start, unmarked.
 */
export function snippetOf(text: string, words: readonly string[]): string {
  const pattern = new RegExp(words.map(escapeRegExp).join("|"), "giu");
  const first = pattern.exec(text);
  const half = Math.floor(LIMITS.searchSnippetLength / 2);
  const start = first ? Math.max(0, first.index - half) : 0;
  const end = Math.min(text.length, start + LIMITS.searchSnippetLength);
  const [open, close] = SEARCH_MATCH_MARKS;
  const marked = text.slice(start, end).replace(pattern, (match) => `${open}${match}${close}`);
  return `${start > 0 ? "…" : ""}${marked}${end < text.length ? "…" : ""}`;
}
