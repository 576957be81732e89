import { join } from "node:path";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { ManualClock } from "./clock";
import { blockSearchThroughRecent, FOLD_BLOCK_SEARCH, migrate } from "./migrations";
import { type SearchPosition, searchWorkspace } from "./search";
import { FOLD_AT, FTS5_TOKENIZE } from "./search-recent";
import { searchText, searchWords } from "./search-words";
import { openSqliteDriver } from "./sql/sqlite-driver";
import type { SqlDriver } from "./sql/driver";

/**
 * Migration 22's promise (decision 0045, amendment): with writes noted in `block_search_recent` and folded into FTS5
 * every few writes, the search finds exactly the blocks an FTS5 index kept at every write would — whatever the
 * writes (insert, change, delete, a rowid used again after a delete) and wherever the folds fall. The reference is
 * such an index in the same file (`reference`, the triggers before migration 22); the folds come every 3 notes here.
 */

const dir = mkdtempSync(join(tmpdir(), "mnote-search-recent-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// Words that FTS5's tokenizer treats unlike a plain comparison: case, accents, a number it splits, CJK words.
const WORDS = ["Launch", "launch", "café", "cafe", "3.14", "plan", "项目计划", "计划", "budget", "Ünïcode"];

type Op =
  | { kind: "insert"; page: number; words: string[] }
  | { kind: "update"; pick: number; words: string[] }
  | { kind: "delete"; pick: number };

const text = fc.array(fc.constantFrom(...WORDS), { minLength: 0, maxLength: 4 });
const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ kind: fc.constant("insert" as const), page: fc.nat(2), words: text }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("update" as const), pick: fc.nat(), words: text }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("delete" as const), pick: fc.nat() }) },
);

let databases = 0;
async function openWorld(): Promise<SqlDriver> {
  const driver = openSqliteDriver(join(dir, `db${++databases}.sqlite`));
  const clock = new ManualClock(new Date("2026-12-01T00:00:00.000Z"));
  await migrate(driver, clock);
  // Folds every 3 notes instead of FOLD_AT, so a few writes cross several folds.
  const triggers = ["fold", "insert", "delete", "update"].map((name) => `DROP TRIGGER block_search_${name}`);
  const again = blockSearchThroughRecent(3).filter((sql) => !sql.startsWith("DROP TRIGGER"));
  await driver.exec([...triggers, `DROP TABLE block_search_recent`, ...again].map((sql) => `${sql};`).join("\n"));
  // The reference: an index kept at every write, as before migration 22.
  await driver.exec(`
    CREATE VIRTUAL TABLE reference USING fts5 (search_text, content = 'blocks', content_rowid = 'rowid', tokenize = '${FTS5_TOKENIZE}');
    CREATE TRIGGER reference_insert AFTER INSERT ON blocks BEGIN INSERT INTO reference (rowid, search_text) VALUES (new.rowid, new.search_text); END;
    CREATE TRIGGER reference_delete AFTER DELETE ON blocks BEGIN INSERT INTO reference (reference, rowid, search_text) VALUES ('delete', old.rowid, old.search_text); END;
    CREATE TRIGGER reference_update AFTER UPDATE OF search_text ON blocks BEGIN
      INSERT INTO reference (reference, rowid, search_text) VALUES ('delete', old.rowid, old.search_text);
      INSERT INTO reference (rowid, search_text) VALUES (new.rowid, new.search_text);
    END;
    INSERT INTO users (id, name, created_at) VALUES ('u', 'U', '2026-12-01T00:00:00.000Z');
    INSERT INTO workspaces (id, name, created_at) VALUES ('w', 'W', '2026-12-01T00:00:00.000Z');
    INSERT INTO members (workspace_id, user_id, role) VALUES ('w', 'u', 'owner');
  `);
  // Page p2 is private without a grant: its blocks are never hits, noted or folded.
  for (const page of [0, 1, 2])
    await driver.run(
      `INSERT INTO pages (id, workspace_id, title, is_private, options, revision, block_count, created_by, created_at, updated_at)
       VALUES (?, 'w', 'page', ?, '{}', 1, 0, 'u', '2026-12-01T00:00:00.000Z', '2026-12-01T00:00:00.000Z')`,
      [`p${page}`, page === 2 ? 1 : 0],
    );
  return driver;
}

async function apply(driver: SqlDriver, ops: Op[]) {
  let made = 0;
  for (const step of ops) {
    const blocks = await driver.all<{ document_id: string; id: string }>(
      `SELECT document_id, id FROM blocks ORDER BY rowid`,
    );
    const words = step.kind === "delete" ? "" : step.words.join(" ");
    await driver.transaction(async (tx) => {
      if (step.kind === "insert") {
        // The highest rowid is used again after its block is deleted (no AUTOINCREMENT): the ops make that happen.
        await tx.run(
          `INSERT INTO blocks (document_id, id, position, type, text, attrs, search_text)
           VALUES (?, ?, 0, 'paragraph', ?, '{}', ?)`,
          [`p${step.page}`, `b${++made}`, words, searchText(words)],
        );
        return;
      }
      if (blocks.length === 0) return;
      const target = blocks[step.pick % blocks.length]!;
      if (step.kind === "update")
        await tx.run(`UPDATE blocks SET text = ?, search_text = ? WHERE document_id = ? AND id = ?`, [
          words,
          searchText(words),
          target.document_id,
          target.id,
        ]);
      else await tx.run(`DELETE FROM blocks WHERE document_id = ? AND id = ?`, [target.document_id, target.id]);
    });
  }
}

/** Every block hit, window after window of `limit` (each window starts after the last block hit of the one before). */
const found = async (driver: SqlDriver, word: string, limit: number) => {
  const all: string[] = [];
  let after: SearchPosition | null = null;
  for (;;) {
    const hits = await searchWorkspace(driver, {
      workspaceId: "w",
      readers: ["u"],
      words: searchWords(word),
      documentIds: null,
      after,
      limit,
    });
    const blocks = hits.filter((hit) => hit.blockId !== null);
    all.push(...blocks.map((hit) => `${hit.documentId}:${hit.blockId}`));
    if (hits.length < limit || blocks.length === 0) return all;
    const last = blocks.at(-1)!;
    after = { phase: "block", documentId: last.documentId, blockId: last.blockId! };
  }
};

const expected = async (driver: SqlDriver, word: string) => {
  const phrase = searchWords(word)
    .map((w) => `"${w.replaceAll('"', '""')}"`)
    .join(" ");
  const rows = await driver.all<{ document_id: string; id: string }>(
    `SELECT b.document_id, b.id FROM reference CROSS JOIN blocks b ON b.rowid = reference.rowid
     WHERE reference MATCH ? AND b.document_id <> 'p2' ORDER BY reference.rowid`,
    [phrase],
  );
  return rows.map((row) => `${row.document_id}:${row.id}`);
};

describe("block search between folds (SQLite, migration 22)", () => {
  it("finds what an index kept at every write finds, in the same order and windows, with the folds anywhere", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(op, { minLength: 1, maxLength: 25 }),
        fc.integer({ min: 1, max: 8 }),
        async (ops, limit) => {
          const driver = await openWorld();
          try {
            await apply(driver, ops);
            for (const word of WORDS) expect(await found(driver, word, limit)).toEqual(await expected(driver, word));
            // Once everything noted is folded, FTS5 holds exactly the blocks' words (its own check against the table).
            await driver.exec(
              `${FOLD_BLOCK_SEARCH}\nINSERT INTO block_search (block_search, rank) VALUES ('integrity-check', 1);`,
            );
          } finally {
            await driver.close();
          }
        },
      ),
      { numRuns: 40 },
    );
  }, 120_000);

  it("matches the noted blocks with the index's own tokenizer", async () => {
    const driver = openSqliteDriver(join(dir, "tokenizer.sqlite"));
    try {
      await migrate(driver, new ManualClock(new Date("2026-12-01T00:00:00.000Z")));
      const index = await driver.get<{ sql: string }>(`SELECT sql FROM sqlite_master WHERE name = 'block_search'`);
      expect(index!.sql).toContain(`tokenize = '${FTS5_TOKENIZE}'`);
    } finally {
      await driver.close();
    }
  });

  it("folds in the write that makes the FOLD_AT-th note, and a write before it touches no FTS5 segment", async () => {
    const driver = openSqliteDriver(join(dir, "fold.sqlite"));
    try {
      await migrate(driver, new ManualClock(new Date("2026-12-01T00:00:00.000Z")));
      await driver.exec(`
        INSERT INTO users (id, name, created_at) VALUES ('u', 'U', '2026-12-01T00:00:00.000Z');
        INSERT INTO workspaces (id, name, created_at) VALUES ('w', 'W', '2026-12-01T00:00:00.000Z');
        INSERT INTO pages (id, workspace_id, title, is_private, options, revision, block_count, created_by, created_at, updated_at)
          VALUES ('p', 'w', 'page', 0, '{}', 1, 0, 'u', '2026-12-01T00:00:00.000Z', '2026-12-01T00:00:00.000Z');
      `);
      const segments = async () =>
        Number((await driver.get<{ n: number }>(`SELECT COUNT(*) AS n FROM block_search_data`))!.n);
      const noted = async () =>
        Number((await driver.get<{ n: number }>(`SELECT COUNT(*) AS n FROM block_search_recent`))!.n);
      const before = await segments();
      for (let i = 0; i < FOLD_AT - 1; i++)
        await driver.run(
          `INSERT INTO blocks (document_id, id, position, type, text, attrs, search_text) VALUES ('p', ?, ?, 'paragraph', 'plan', '{}', 'plan')`,
          [`b${i}`, i],
        );
      expect(await noted()).toBe(FOLD_AT - 1);
      expect(await segments()).toBe(before);
      await driver.run(
        `INSERT INTO blocks (document_id, id, position, type, text, attrs, search_text) VALUES ('p', 'last', ?, 'paragraph', 'plan', '{}', 'plan')`,
        [FOLD_AT],
      );
      expect(await noted()).toBe(0);
      expect(await segments()).toBeGreaterThan(before);
      const hits = await driver.all(`SELECT rowid FROM block_search WHERE block_search MATCH 'plan'`);
      expect(hits).toHaveLength(FOLD_AT);
    } finally {
      await driver.close();
    }
  });
});
