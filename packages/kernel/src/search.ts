import { matchRecent } from "./search-recent";
import type { SqlDriver } from "./sql/driver";

/**
 * The workspace search's reads (issue 34, decision 0045). What a caller may not read is never looked at as a hit:
 * the pages every reader may read are a predicate inside each query, beside the full-text match, so a page outside
 * that set changes no hit, no order and no cursor (there is no count). Title hits come first, by page id (titles are
 * few); then block hits in the order the engine already holds — the order the blocks were written, SQLite's rowid
 * (FTS5 hands its matches in it) and PostgreSQL's `search_order` identity (indexed) — so a window stops after its
 * `limit` hits instead of sorting every match. A window ends at a place named by the last hit (its page and block),
 * resolved to the engine's number here, among readable blocks only, so no number leaves the kernel. A removed page
 * (decision 0046: a reverted page.create keeps its row and title) is missing here as in every read.
 */

/** Where the previous window ended: after this page's title hit, or after this block hit. */
export type SearchPosition =
  { phase: "title"; documentId: string } | { phase: "block"; documentId: string; blockId: string };

/** A cursor's block no longer is a readable block (rewritten, deleted, or not the caller's to read). */
export class StaleSearchCursor extends Error {
  constructor() {
    super("the search cursor names no block the readers may read");
  }
}

export interface WorkspaceSearchQuery {
  workspaceId: string;
  /** The people whose reading rights the answer keeps to: a page is searched only when every one may read it. */
  readers: readonly string[];
  /** The query's words (`searchWords`): a hit holds every one. */
  words: readonly string[];
  /** Only these pages, when given. */
  documentIds: readonly string[] | null;
  after: SearchPosition | null;
  /** Hits in this window at most. */
  limit: number;
}

export interface SearchHitRow {
  documentId: string;
  title: string;
  /** Null for a title hit. */
  blockId: string | null;
  /** The matching text: the title, or the block's text. */
  text: string;
  /** The block's position; null for a title hit. */
  position: number | null;
}

interface TitleRow {
  id: string;
  title: string;
}
interface BlockHitRow {
  document_id: string;
  title: string;
  id: string;
  text: string;
  position: number | string;
}

/**
 * The rule `canReadPage` (packages/tools/src/access.ts) says for one member, as SQL over the page row `p`: a page
 * that is not private, or one the reader holds a grant on. The readers' membership is the checks' (step 4).
 */
const readableBy = (readers: readonly string[]) => ({
  sql: readers
    .map(
      () => `(p.is_private = 0 OR EXISTS (SELECT 1 FROM page_grants g WHERE g.document_id = p.id AND g.user_id = ?))`,
    )
    .join(" AND "),
  params: [...readers],
});

const onlyPages = (ids: readonly string[] | null) =>
  ids === null ? { sql: "", params: [] } : { sql: ` AND p.id IN (${ids.map(() => "?").join(", ")})`, params: [...ids] };

/** The full-text match on each engine, over the words the index stores. */
function matchOn(db: SqlDriver, words: readonly string[], index: "block" | "page") {
  if (db.dialect === "sqlite") {
    // Each word a quoted FTS5 string: a query's quotes, stars or NEAR are words, never syntax.
    const phrase = words.map((word) => `"${word.replaceAll('"', '""')}"`).join(" ");
    return { sql: `${index}_search MATCH ?`, params: [phrase] };
  }
  const column = index === "block" ? "b.search_text" : "p.search_title";
  return { sql: `to_tsvector('simple', ${column}) @@ plainto_tsquery('simple', ?)`, params: [words.join(" ")] };
}

export async function searchWorkspace(db: SqlDriver, query: WorkspaceSearchQuery): Promise<SearchHitRow[]> {
  if (query.words.length === 0 || query.readers.length === 0 || query.limit <= 0) return [];
  if (query.documentIds !== null && query.documentIds.length === 0) return [];
  const hits: SearchHitRow[] = [];
  if (query.after?.phase !== "block") {
    const titles = await titleHits(db, query, query.after?.documentId ?? null);
    hits.push(
      ...titles.map((row) => ({
        documentId: row.id,
        title: row.title,
        blockId: null,
        text: row.title,
        position: null,
      })),
    );
  }
  if (hits.length < query.limit) {
    const after = query.after?.phase === "block" ? query.after : null;
    const blocks = await blockHits(db, { ...query, limit: query.limit - hits.length }, after);
    hits.push(
      ...blocks.map((row) => ({
        documentId: row.document_id,
        title: row.title,
        blockId: row.id,
        text: row.text,
        position: Number(row.position),
      })),
    );
  }
  return hits;
}

async function titleHits(db: SqlDriver, query: WorkspaceSearchQuery, afterId: string | null) {
  const match = matchOn(db, query.words, "page");
  const readable = readableBy(query.readers);
  const only = onlyPages(query.documentIds);
  const from =
    // CROSS JOIN: SQLite then starts from the index's matches (a rare word reads its few rows), never from the pages.
    db.dialect === "sqlite" ? `FROM page_search CROSS JOIN pages p ON p.rowid = page_search.rowid` : `FROM pages p`;
  return db.all<TitleRow>(
    `SELECT p.id, p.title ${from}
      WHERE ${match.sql} AND p.workspace_id = ? AND p.removed_at IS NULL AND ${readable.sql}${only.sql} AND p.id > ?
      ORDER BY p.id LIMIT ?`,
    [...match.params, query.workspaceId, ...readable.params, ...only.params, afterId ?? "", query.limit],
  );
}

/** PostgreSQL: blocks read in written order before the GIN index is asked instead (see blockHits). */
const SCAN_AHEAD = 500;

/** The column holding the order blocks were written in: the one each engine's search reads in, without sorting. */
const writtenOrder = (db: SqlDriver) => (db.dialect === "sqlite" ? "b.rowid" : "b.search_order");

/**
 * The cursor's block, as its number in the written order — looked up among the blocks the readers may read, so a
 * cursor naming any other block is refused the same way whether that block exists or not.
 */
async function anchorOf(
  db: SqlDriver,
  query: WorkspaceSearchQuery,
  after: Extract<SearchPosition, { phase: "block" }>,
): Promise<number> {
  const readable = readableBy(query.readers);
  const only = onlyPages(query.documentIds);
  const row = await db.get<{ n: number | string }>(
    `SELECT ${writtenOrder(db)} AS n FROM blocks b JOIN pages p ON p.id = b.document_id
      WHERE b.document_id = ? AND b.id = ? AND p.workspace_id = ? AND p.removed_at IS NULL AND ${readable.sql}${only.sql}`,
    [after.documentId, after.blockId, query.workspaceId, ...readable.params, ...only.params],
  );
  if (!row) throw new StaleSearchCursor();
  return Number(row.n);
}

async function blockHits(
  db: SqlDriver,
  query: WorkspaceSearchQuery,
  after: Extract<SearchPosition, { phase: "block" }> | null,
) {
  const anchor = after === null ? -1 : await anchorOf(db, query, after);
  const match = matchOn(db, query.words, "block");
  const readable = readableBy(query.readers);
  const only = onlyPages(query.documentIds);
  const scope = `p.workspace_id = ? AND p.removed_at IS NULL AND ${readable.sql}${only.sql}`;
  const scopeParams = [query.workspaceId, ...readable.params, ...only.params];
  const where = `${match.sql} AND ${scope}`;
  const params = [...match.params, ...scopeParams];
  const columns = "b.document_id, p.title, b.id, b.text, b.position";
  if (db.dialect === "sqlite") {
    // Migration 22: the blocks written since the last fold are noted, and FTS5 holds none of their words yet (or
    // their words before the change). So FTS5's hits skip every noted block, and the noted blocks of the readable
    // pages (at most FOLD_AT, none outside the readable set) are matched here by their current words. One statement
    // reads both, so they come from one snapshot: read apart, a block noted by a write committed in between was in
    // neither. The FTS5 arm: from its matches (CROSS JOIN keeps that order), whose rowid order is the index's own,
    // with the rowid bound handed to FTS5, so it stops after `limit` readable hits, for a common word as for a rare
    // one. The noted arm starts from the notes (CROSS JOIN; left to the planner it started from the workspace's pages).
    const rows = await db.all<BlockHitRow & { n: number; words: string | null }>(
      `SELECT * FROM (SELECT block_search.rowid AS n, NULL AS words, ${columns}
          FROM block_search CROSS JOIN blocks b ON b.rowid = block_search.rowid CROSS JOIN pages p ON p.id = b.document_id
          WHERE block_search.rowid > ? AND ${where} AND block_search.rowid NOT IN (SELECT rowid FROM block_search_recent)
          ORDER BY block_search.rowid LIMIT ?)
       UNION ALL
       SELECT r.rowid AS n, b.search_text AS words, ${columns}
         FROM block_search_recent r CROSS JOIN blocks b ON b.rowid = r.rowid CROSS JOIN pages p ON p.id = b.document_id
         WHERE r.rowid > ? AND ${scope}`,
      [anchor, ...params, query.limit, anchor, ...scopeParams],
    );
    const indexed = rows.filter((row) => row.words === null);
    const noted = rows.filter((row): row is typeof row & { words: string } => row.words !== null);
    const matched = new Set(matchRecent(noted, match.params[0] as string));
    if (matched.size === 0) return indexed;
    // The first `limit` of both, in written order.
    return [...indexed, ...noted.filter((row) => matched.has(Number(row.n)))]
      .sort((a, b) => Number(a.n) - Number(b.n))
      .slice(0, query.limit);
  }
  // PostgreSQL's planner guesses a word's frequency from sampled statistics and took the `search_order` index for a
  // word in 1 block of 50,000 (a 7 s walk of every block). So: first the next SCAN_AHEAD blocks in written order
  // (an index range, whatever the word) — a word that fills the window there is done; otherwise the word is rare
  // near here, and the GIN index finds its matches (`+ 0`: an order no btree gives, so the planner cannot walk one).
  const near = await db.all<BlockHitRow>(
    `SELECT ${columns} FROM (SELECT * FROM blocks WHERE search_order > ? ORDER BY search_order LIMIT ${SCAN_AHEAD}) b
      JOIN pages p ON p.id = b.document_id WHERE ${where} ORDER BY b.search_order LIMIT ?`,
    [anchor, ...params, query.limit],
  );
  if (near.length >= query.limit) return near;
  return db.all<BlockHitRow>(
    `SELECT ${columns} FROM blocks b JOIN pages p ON p.id = b.document_id
      WHERE b.search_order + 0 > ? AND ${where} ORDER BY b.search_order + 0 LIMIT ?`,
    [anchor, ...params, query.limit],
  );
}
