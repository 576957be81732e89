/**
 * SQLite's block search between two folds (decision 0045, amendment; migration 22). FTS5 writes a segment at every
 * commit that changed it, a fixed ~40 µs, so a block write only notes its block in `block_search_recent` and every
 * `FOLD_AT`-th note folds the noted blocks into FTS5 in one go. Until then the search must find the noted blocks by
 * their current words, with FTS5's own matching: they are put in an FTS5 table in memory, made the same way as the
 * index (`FTS5_TOKENIZE`), and asked the same MATCH. At most `FOLD_AT` blocks, so that costs tens of microseconds.
 */
import Database from "better-sqlite3";

/** The tokenizer of the table in memory here: the index's (migration 19 writes it out, as an applied version must). */
export const FTS5_TOKENIZE = "unicode61 remove_diacritics 2";

/**
 * Noted blocks that make a fold (SQLite): each fold is one FTS5 segment for this many block writes, paid by the write
 * that makes the last note. At 64 that write took ~0.8 ms more (the approvals benchmark's timed approval landed on it:
 * 2.15× the only one, goal ≤ 2×); at 16 it was ~0.25 ms (migration 22). Since SQLite's checkpoints left the event loop
 * (decision 0051) a write costs less, and at 16 the index's share of it was 1.18–1.20× a write without it; at 32
 * 1.09–1.16× (migration 23).
 */
export const FOLD_AT = 32;

let memory: { insert: Database.Statement; clear: Database.Statement; match: Database.Statement } | null = null;

function matcher() {
  if (memory) return memory;
  const db = new Database(":memory:");
  db.exec(`CREATE VIRTUAL TABLE recent USING fts5 (search_text, tokenize = '${FTS5_TOKENIZE}')`);
  memory = {
    insert: db.prepare(`INSERT INTO recent (rowid, search_text) VALUES (?, ?)`),
    clear: db.prepare(`DELETE FROM recent`),
    match: db.prepare(`SELECT rowid AS n FROM recent WHERE recent MATCH ? ORDER BY rowid`).pluck(),
  };
  return memory;
}

/**
 * The rowids among `blocks` whose words match the FTS5 query `match` (the same query string the index is asked),
 * in rowid order. Synchronous from start to end: the one table in memory is filled and asked with nothing in between.
 */
export function matchRecent(blocks: readonly { n: number | bigint; words: string }[], match: string): number[] {
  if (blocks.length === 0) return [];
  const { insert, clear, match: ask } = matcher();
  clear.run();
  for (const block of blocks) insert.run(block.n, block.words);
  const found = (ask.all(match) as (number | bigint)[]).map(Number);
  clear.run();
  return found;
}
