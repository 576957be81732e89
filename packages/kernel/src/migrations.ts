import { type Clock, systemClock } from "./clock";
import { auditMonthsOnline, auditMonthsStatements, dropDefaultPartitionOnline } from "./audit-partitions";
import { FOLD_AT } from "./search-recent";
import { searchText } from "./search-words";
import { inSession, type SqlDriver, type SqlExecutor } from "./sql/driver";

/**
 * Versioned schema. Statements are written in the SQL both dialects accept; the
 * only dialect word is the audit log's auto-increment key. Append new versions,
 * never edit an applied one.
 */
interface Migration {
  version: number;
  name: string;
  /**
   * What must happen before the transaction, on a session of its own and without a statement timeout: long work that
   * may not block writers (building an index CONCURRENTLY, validating a constraint). Runs under the migration lock,
   * and again if the process stopped before the version was recorded, so each step is idempotent. `now` is the
   * migrating process's clock.
   */
  online?: (session: SqlExecutor, dialect: SqlDriver["dialect"], now: Date) => Promise<void>;
  statements: (dialect: SqlDriver["dialect"]) => string[];
  /** What the statements cannot say in SQL, in the same transaction after them (filling a column computed in JS). */
  after?: (tx: SqlExecutor) => Promise<void>;
}

const MIGRATIONS: Migration[] = [
  {
    version: 1,
    name: "initial schema",
    statements: (dialect) => [
      `CREATE TABLE users (id TEXT PRIMARY KEY, name TEXT NOT NULL, created_at TEXT NOT NULL)`,
      `CREATE TABLE workspaces (id TEXT PRIMARY KEY, name TEXT NOT NULL,
        approval_required INTEGER NOT NULL DEFAULT 1, created_at TEXT NOT NULL)`,
      `CREATE TABLE members (workspace_id TEXT NOT NULL REFERENCES workspaces(id), user_id TEXT NOT NULL REFERENCES users(id),
        role TEXT NOT NULL CHECK (role IN ('owner', 'editor', 'viewer')), PRIMARY KEY (workspace_id, user_id))`,
      `CREATE TABLE pages (id TEXT PRIMARY KEY, workspace_id TEXT NOT NULL REFERENCES workspaces(id), title TEXT NOT NULL,
        is_private INTEGER NOT NULL DEFAULT 0, options TEXT NOT NULL, revision INTEGER NOT NULL,
        block_count INTEGER NOT NULL DEFAULT 0, created_by TEXT NOT NULL, created_at TEXT NOT NULL, updated_at TEXT NOT NULL)`,
      `CREATE INDEX pages_by_workspace ON pages (workspace_id)`,
      `CREATE TABLE page_grants (document_id TEXT NOT NULL REFERENCES pages(id), user_id TEXT NOT NULL REFERENCES users(id),
        access TEXT NOT NULL CHECK (access IN ('read', 'write')), PRIMARY KEY (document_id, user_id))`,
      `CREATE TABLE blocks (document_id TEXT NOT NULL REFERENCES pages(id), id TEXT NOT NULL, position INTEGER NOT NULL,
        type TEXT NOT NULL, text TEXT NOT NULL, attrs TEXT NOT NULL, PRIMARY KEY (document_id, id))`,
      `CREATE INDEX blocks_by_position ON blocks (document_id, position)`,
      `CREATE TABLE tokens (id TEXT PRIMARY KEY, user_id TEXT NOT NULL REFERENCES users(id),
        holder TEXT NOT NULL CHECK (holder IN ('person', 'agent')), scopes TEXT NOT NULL, token_hash TEXT NOT NULL UNIQUE,
        label TEXT NOT NULL, created_at TEXT NOT NULL, expires_at TEXT, revoked_at TEXT)`,
      `CREATE TABLE commands (id TEXT PRIMARY KEY, name TEXT NOT NULL, tool_name TEXT NOT NULL,
        workspace_id TEXT NOT NULL, document_id TEXT NOT NULL REFERENCES pages(id), actor_id TEXT NOT NULL,
        token_id TEXT, holder TEXT, session_id TEXT, run_id TEXT, tool_call_id TEXT, trace_id TEXT,
        payload_fingerprint TEXT NOT NULL, idempotency_key TEXT NOT NULL,
        revision_before INTEGER NOT NULL, revision_after INTEGER NOT NULL, undo TEXT, created_at TEXT NOT NULL)`,
      `CREATE INDEX commands_by_document ON commands (document_id, revision_after)`,
      `CREATE TABLE idempotency (workspace_id TEXT NOT NULL, actor_id TEXT NOT NULL, tool_name TEXT NOT NULL, key TEXT NOT NULL,
        fingerprint TEXT NOT NULL, command_id TEXT NOT NULL REFERENCES commands(id), result TEXT NOT NULL,
        created_at TEXT NOT NULL, expires_at TEXT NOT NULL, PRIMARY KEY (workspace_id, actor_id, tool_name, key))`,
      `CREATE INDEX idempotency_by_expiry ON idempotency (expires_at)`,
      `CREATE TABLE nodes (id TEXT PRIMARY KEY, workspace_id TEXT NOT NULL, document_id TEXT NOT NULL REFERENCES pages(id),
        kind TEXT NOT NULL CHECK (kind IN ('summary', 'ai_note')), content TEXT NOT NULL, created_by TEXT NOT NULL,
        command_id TEXT NOT NULL REFERENCES commands(id) DEFERRABLE INITIALLY DEFERRED,
        created_at TEXT NOT NULL, updated_at TEXT NOT NULL)`,
      // One summary per page, enforced by the database rather than by a read-then-write.
      `CREATE UNIQUE INDEX one_summary_per_page ON nodes (document_id) WHERE kind = 'summary'`,
      `CREATE TABLE edges (id TEXT PRIMARY KEY, workspace_id TEXT NOT NULL, from_document_id TEXT NOT NULL REFERENCES pages(id),
        to_node_id TEXT NOT NULL REFERENCES nodes(id), kind TEXT NOT NULL, created_at TEXT NOT NULL,
        UNIQUE (from_document_id, to_node_id, kind))`,
      `CREATE TABLE audit_log (id ${dialect === "sqlite" ? "INTEGER PRIMARY KEY AUTOINCREMENT" : "BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY"},
        at TEXT NOT NULL, tool_name TEXT NOT NULL, effect TEXT NOT NULL, outcome TEXT NOT NULL, error_code TEXT,
        workspace_id TEXT, document_id TEXT, actor_id TEXT, token_id TEXT, holder TEXT,
        session_id TEXT, run_id TEXT, tool_call_id TEXT, trace_id TEXT, command_id TEXT,
        idempotency_key TEXT, payload_fingerprint TEXT, base_revision INTEGER, detail TEXT, duration_ms INTEGER)`,
      `CREATE INDEX audit_by_document ON audit_log (document_id, id)`,
      `CREATE INDEX audit_by_command ON audit_log (command_id)`,
    ],
  },
  {
    version: 2,
    name: "proposals index",
    // Decision 0013: pending proposals and held writes are found through their own rows, whatever the
    // audit volume. A row points at the audit record holding the full preview; it carries only what the
    // panel's list shows. The kernel keeps its state: a write of the same edit applies it, a `rejected`
    // record rejects it.
    statements: (dialect) => [
      // PostgreSQL: no foreign key since version 12 partitioned audit_log (a key must name the partition column), so
      // version 2 no longer makes one that 12 drops; a database made before keeps its key until 12 drops it.
      `CREATE TABLE proposals (audit_id ${dialect === "sqlite" ? "INTEGER PRIMARY KEY REFERENCES audit_log(id)" : "BIGINT PRIMARY KEY"},
        at TEXT NOT NULL, tool_name TEXT NOT NULL, workspace_id TEXT NOT NULL, document_id TEXT NOT NULL,
        actor_id TEXT NOT NULL, token_id TEXT, holder TEXT, session_id TEXT, run_id TEXT, tool_call_id TEXT, trace_id TEXT,
        idempotency_key TEXT NOT NULL, payload_fingerprint TEXT NOT NULL, base_revision INTEGER,
        held INTEGER NOT NULL, status TEXT NOT NULL CHECK (status IN ('pending', 'applied', 'rejected')),
        command_id TEXT, decided_at TEXT, summary TEXT)`,
      `CREATE INDEX proposals_by_status ON proposals (document_id, status, audit_id)`,
      `CREATE INDEX proposals_by_edit ON proposals (document_id, tool_name, idempotency_key)`,
      // A proposal of an edit that was already applied is born applied: found by the command's key.
      `CREATE INDEX commands_by_key ON commands (document_id, tool_name, idempotency_key)`,
      // The proposals recorded before this version, with the state the panel derived for them from the log.
      `INSERT INTO proposals (audit_id, at, tool_name, workspace_id, document_id, actor_id, token_id, holder, session_id,
          run_id, tool_call_id, trace_id, idempotency_key, payload_fingerprint, base_revision, held, status, command_id,
          decided_at, summary)
        SELECT a.id, a.at, a.tool_name, a.workspace_id, a.document_id, a.actor_id, a.token_id, a.holder, a.session_id,
          a.run_id, a.tool_call_id, a.trace_id, a.idempotency_key, a.payload_fingerprint, a.base_revision,
          CASE WHEN a.outcome = 'held_for_approval' THEN 1 ELSE 0 END,
          CASE WHEN c.id IS NOT NULL THEN 'applied'
            WHEN EXISTS (SELECT 1 FROM audit_log r WHERE r.outcome = 'rejected' AND r.document_id = a.document_id
              AND r.tool_name = a.tool_name AND r.idempotency_key = a.idempotency_key
              AND r.payload_fingerprint = a.payload_fingerprint AND r.id > a.id) THEN 'rejected'
            ELSE 'pending' END,
          c.id, NULL, NULL
        FROM audit_log a
        LEFT JOIN commands c ON c.id = (SELECT MIN(k.id) FROM commands k WHERE k.document_id = a.document_id
          AND k.tool_name = a.tool_name AND k.idempotency_key = a.idempotency_key AND k.payload_fingerprint = a.payload_fingerprint)
        WHERE a.outcome IN ('proposal', 'held_for_approval') AND a.idempotency_key IS NOT NULL
          AND a.payload_fingerprint IS NOT NULL AND a.detail IS NOT NULL`,
    ],
  },
  {
    version: 3,
    name: "fixed-window counters for limits shared by every instance",
    // Not business data: never copied by migrate-data, rows expire with their window.
    statements: () => [
      `CREATE TABLE rate_windows (key TEXT NOT NULL, window_start TEXT NOT NULL, count INTEGER NOT NULL,
        expires_at TEXT NOT NULL, PRIMARY KEY (key, window_start))`,
      `CREATE INDEX rate_windows_by_expiry ON rate_windows (expires_at)`,
    ],
  },
  {
    version: 4,
    name: "proposals applied in part",
    // Decision 0016: a person may apply some of a proposal's changes in one step. The proposal is then
    // applied (its status stays in the CHECK above) with the indices of the kept changes and their total,
    // so the panel says "applied in part (2 of 3 changes)" and lists what was left out.
    statements: () => [`ALTER TABLE proposals ADD COLUMN applied_part TEXT`],
  },
  {
    version: 5,
    name: "questions asked from the panel",
    // Issue 19 (decision 0021): a conversation asked from the panel belongs to one person and one page;
    // every call of it is checked with that person's rights too, and recorded as asked by them.
    // ask_runs and ask_run_events are what any panel instance needs to follow, stop and answer a run
    // (not business data: never copied by migrate-data; the panel's run sweep removes them, decision 0031).
    statements: () => [
      `ALTER TABLE commands ADD COLUMN asked_by TEXT`,
      `ALTER TABLE audit_log ADD COLUMN asked_by TEXT`,
      `ALTER TABLE proposals ADD COLUMN asked_by TEXT`,
      `CREATE TABLE ask_sessions (session_id TEXT PRIMARY KEY, user_id TEXT NOT NULL, workspace_id TEXT NOT NULL,
        document_id TEXT NOT NULL, created_at TEXT NOT NULL)`,
      `CREATE TABLE ask_runs (run_id TEXT PRIMARY KEY, session_id TEXT NOT NULL, user_id TEXT NOT NULL,
        workspace_id TEXT NOT NULL, document_id TEXT NOT NULL, start_key TEXT, status TEXT NOT NULL,
        started_at TEXT NOT NULL, pumped_at TEXT NOT NULL)`,
      `CREATE UNIQUE INDEX ask_runs_by_start_key ON ask_runs (user_id, start_key)`,
      `CREATE TABLE ask_run_events (run_id TEXT NOT NULL, seq INTEGER NOT NULL, line TEXT NOT NULL,
        PRIMARY KEY (run_id, seq))`,
    ],
  },
  {
    version: 6,
    name: "proposal decisions",
    // Issue 22: who decided, the reason a person gave for rejecting, and whether the applied version was edited
    // by the person first. The agent's retry of a held call answers the decision from these (decision 0023).
    statements: () => [
      `ALTER TABLE proposals ADD COLUMN decided_by TEXT`,
      `ALTER TABLE proposals ADD COLUMN reason TEXT`,
      `ALTER TABLE proposals ADD COLUMN edited INTEGER NOT NULL DEFAULT 0`,
    ],
  },
  {
    version: 7,
    name: "users' emails and tokens' last use",
    // Issue 23: people sign in through their identity provider, found by the verified email it vouches for
    // (stored lower-case; NULL for users who sign in with a token only, which a UNIQUE index allows many of).
    // A token's last use is its newest audit record: every tool call is audited with its token, so the
    // panel reads it there instead of writing a timestamp on every call.
    statements: () => [
      `ALTER TABLE users ADD COLUMN email TEXT`,
      `CREATE UNIQUE INDEX users_by_email ON users (email)`,
      `CREATE INDEX audit_by_token ON audit_log (token_id, id)`,
    ],
  },
  {
    version: 8,
    name: "what the approval policy holds",
    // Issue 20: an owner may have the policy hold agents' artifacts (summaries, AI notes) too, not only page
    // writes. 0 (the default, and every existing workspace): page writes only.
    statements: () => [`ALTER TABLE workspaces ADD COLUMN hold_artifacts INTEGER NOT NULL DEFAULT 0`],
  },
  {
    version: 10,
    name: "oauth authorization",
    // Issue 23 item 4 (decision 0027): the panel is an OAuth 2.1 authorization server for the bridge's /mcp.
    // A grant is one agent token (`tokens` row) bound to the resource it was issued for (RFC 8707); its access
    // secret rotates with every refresh, so "Connect an agent" lists one row per grant and revoking it ends
    // the grant. Clients register themselves (RFC 7591); an authorization request lives from the consent page
    // to the code's redemption; refresh tokens are kept as hashes, each used once (reuse revokes the grant).
    statements: () => [
      `ALTER TABLE tokens ADD COLUMN resource TEXT`,
      `ALTER TABLE tokens ADD COLUMN oauth_client_id TEXT`,
      `CREATE TABLE oauth_clients (client_id TEXT PRIMARY KEY, client_name TEXT NOT NULL, redirect_uris TEXT NOT NULL,
        scope TEXT, created_at TEXT NOT NULL)`,
      `CREATE TABLE oauth_requests (id TEXT PRIMARY KEY, request_hash TEXT NOT NULL UNIQUE, code_hash TEXT UNIQUE,
        session_token_id TEXT NOT NULL, user_id TEXT NOT NULL, client_id TEXT NOT NULL, redirect_uri TEXT NOT NULL,
        code_challenge TEXT NOT NULL, resource TEXT NOT NULL, scopes TEXT NOT NULL, state TEXT,
        created_at TEXT NOT NULL, expires_at TEXT NOT NULL, decided_at TEXT, redeemed_at TEXT, token_id TEXT)`,
      `CREATE TABLE oauth_refresh_tokens (token_hash TEXT PRIMARY KEY, token_id TEXT NOT NULL,
        created_at TEXT NOT NULL, expires_at TEXT NOT NULL, used_at TEXT)`,
      `CREATE INDEX oauth_refresh_by_token ON oauth_refresh_tokens (token_id)`,
    ],
  },
  // Issue 39 (decision 0035): audit records carry their month; on PostgreSQL the table is partitioned by it.
  // The online part adds the column and builds the indexes the partitioned table takes over without blocking writes;
  // the transaction then swaps the tables (catalog changes only, brief locks): see audit-partitions.ts.
  { version: 12, name: "audit records by month", online: auditMonthsOnline, statements: auditMonthsStatements },
  {
    version: 13,
    name: "decisions change by change",
    // Issue 32 (decision 0030): a proposal's changes are decided one by one; the decisions so far (a JSON map
    // from change index to state, who, when, the write and the reason) stay with the proposal's index row.
    statements: () => [`ALTER TABLE proposals ADD COLUMN change_states TEXT`],
  },
  {
    version: 14,
    name: "invitations",
    // Issue 31: an owner no longer adds anyone of any tenant by email. "Add by email" invites: the invitation names
    // an email, not a user, and answers the same whether anyone has it; the person it names sees it after signing in
    // and accepts (only then a member) or declines. One pending invitation per workspace and email.
    statements: () => [
      `CREATE TABLE invitations (id TEXT PRIMARY KEY, workspace_id TEXT NOT NULL REFERENCES workspaces(id),
        email TEXT NOT NULL, role TEXT NOT NULL CHECK (role IN ('owner', 'editor', 'viewer')), invited_by TEXT NOT NULL,
        created_at TEXT NOT NULL, decided_at TEXT, outcome TEXT CHECK (outcome IN ('accepted', 'declined')))`,
      `CREATE UNIQUE INDEX invitations_pending ON invitations (workspace_id, email) WHERE decided_at IS NULL`,
      `CREATE INDEX invitations_by_email ON invitations (email, decided_at)`,
    ],
  },
  {
    version: 17,
    name: "comment threads",
    // Issue 34 (decision 0040): comments are page artifacts, not chat. A thread hangs on a block by id (no foreign
    // key: the block may be deleted and the thread stays, read as detached); its comments are numbered in the
    // thread (`seq`, under the page's write lock) so replies keep their order whatever the clock says. A comment's
    // body is blocks, like a page. Who wrote it and who resolved the thread are the tokens' users and holders.
    statements: () => [
      `CREATE TABLE comment_threads (id TEXT PRIMARY KEY, workspace_id TEXT NOT NULL REFERENCES workspaces(id),
        document_id TEXT NOT NULL REFERENCES pages(id), block_id TEXT NOT NULL, quote TEXT, created_by TEXT NOT NULL,
        command_id TEXT NOT NULL REFERENCES commands(id) DEFERRABLE INITIALLY DEFERRED,
        created_at TEXT NOT NULL, updated_at TEXT NOT NULL, resolved_at TEXT, resolved_by TEXT,
        resolved_holder TEXT CHECK (resolved_holder IN ('person', 'agent')), resolved_token_id TEXT)`,
      `CREATE INDEX comment_threads_by_document ON comment_threads (document_id, created_at, id)`,
      `CREATE TABLE comments (id TEXT PRIMARY KEY, thread_id TEXT NOT NULL REFERENCES comment_threads(id),
        document_id TEXT NOT NULL REFERENCES pages(id), seq INTEGER NOT NULL, author_id TEXT NOT NULL,
        author_holder TEXT NOT NULL CHECK (author_holder IN ('person', 'agent')), author_token_id TEXT,
        body TEXT NOT NULL, command_id TEXT NOT NULL REFERENCES commands(id) DEFERRABLE INITIALLY DEFERRED,
        created_at TEXT NOT NULL, UNIQUE (thread_id, seq))`,
    ],
  },
  {
    version: 18,
    name: "audit months without a default partition",
    // Issue 39 (decision 0041): PostgreSQL refuses DETACH PARTITION CONCURRENTLY while a default partition exists,
    // and dropping a month otherwise locks audit_log against every call. The online part makes the months around
    // now, detaches the default and moves what it held into months of their own (audit-partitions.ts); nothing is
    // left for the transaction. SQLite has no partitions.
    online: dropDefaultPartitionOnline,
    statements: () => [],
  },
  {
    version: 19,
    name: "workspace search index",
    // Issue 34 (decision 0045): the words of every block's text and every page's title (search-words.ts, the same
    // segmentation on both engines), in a column the writes fill, indexed by the engine's full-text search: SQLite
    // FTS5 over the column (external content, kept by triggers in the write's own transaction), PostgreSQL a GIN
    // index on its `simple` tsvector (kept by the engine in the same transaction).
    statements: (dialect) => [
      `ALTER TABLE blocks ADD COLUMN search_text TEXT NOT NULL DEFAULT ''`,
      `ALTER TABLE pages ADD COLUMN search_title TEXT NOT NULL DEFAULT ''`,
      ...(dialect === "sqlite"
        ? [
            ...fts5Statements("block_search", "blocks", "search_text"),
            ...fts5Statements("page_search", "pages", "search_title"),
          ]
        : [
            `CREATE INDEX blocks_search ON blocks USING GIN (to_tsvector('simple', search_text))`,
            `CREATE INDEX pages_search ON pages USING GIN (to_tsvector('simple', search_title))`,
          ]),
    ],
    after: fillSearchColumns,
  },
  {
    version: 20,
    name: "removed pages",
    // Issue 34 (decision 0046): reverting an agent's page.create removes the page again. Its commands, audit records
    // and proposals keep pointing at it (commands reference pages), so the row stays, marked removed: every page
    // read treats a removed page as missing.
    // A held new page has no page yet: the panel lists the workspace's pending page.create proposals by tool.
    statements: () => [
      `ALTER TABLE pages ADD COLUMN removed_at TEXT`,
      `CREATE INDEX proposals_by_workspace_tool ON proposals (workspace_id, tool_name, status, audit_id)`,
    ],
  },
  {
    version: 21,
    name: "blocks in written order for search",
    // Decision 0045 (amended): block hits come in the order blocks were written, one the engine holds so a window
    // stops after its hits. SQLite has it (the rowid FTS5 matches come in); PostgreSQL gets an identity column,
    // filled for existing rows, and an index on it.
    statements: (dialect) =>
      dialect === "sqlite"
        ? []
        : [
            `ALTER TABLE blocks ADD COLUMN search_order BIGINT GENERATED BY DEFAULT AS IDENTITY`,
            `CREATE INDEX blocks_by_search_order ON blocks (search_order)`,
          ],
  },
  {
    version: 22,
    name: "block search takes writes through a small table",
    // Decision 0045 (amended): FTS5 writes a new segment at every commit that changed it (~40 µs, whatever the
    // index's size), which put a write at 1.18× a write without the index. A block write now notes its block in
    // `block_search_recent` (a plain table, in the write's transaction), the search matches those few blocks itself
    // (search-recent.ts), and every FOLD_AT-th noted block folds them all into FTS5 in the same transaction. PostgreSQL's
    // GIN index has this built in (its pending list); nothing changes there.
    // As it was applied: folding every 16 notes (version 23 makes it FOLD_AT).
    statements: (dialect) => (dialect === "sqlite" ? blockSearchThroughRecent(16) : []),
  },
  {
    version: 23,
    name: "block search folds every 32 notes",
    // Issue 37 (decision 0051): with checkpoints off the event loop a write costs less, and the index's share of it
    // grew (1.18–1.20x a write without its triggers, in four runs); folding half as often put it at 1.09–1.16x. A
    // fold's own write costs more (32 blocks into FTS5 instead of 16), once per 32 block writes.
    statements: (dialect) =>
      dialect === "sqlite" ? [`DROP TRIGGER block_search_fold`, blockSearchFoldTrigger(FOLD_AT)] : [],
  },
];

/** An FTS5 index over one column of a table, kept by triggers: a write and its index change commit together. */
function fts5Statements(index: string, table: string, column: string): string[] {
  const remove = `INSERT INTO ${index} (${index}, rowid, ${column}) VALUES ('delete', old.rowid, old.${column});`;
  const add = `INSERT INTO ${index} (rowid, ${column}) VALUES (new.rowid, new.${column});`;
  return [
    `CREATE VIRTUAL TABLE ${index} USING fts5 (${column}, content = '${table}', content_rowid = 'rowid',
      tokenize = 'unicode61 remove_diacritics 2')`,
    `CREATE TRIGGER ${index}_insert AFTER INSERT ON ${table} BEGIN ${add} END`,
    `CREATE TRIGGER ${index}_delete AFTER DELETE ON ${table} BEGIN ${remove} END`,
    `CREATE TRIGGER ${index}_update AFTER UPDATE OF ${column} ON ${table} BEGIN ${remove} ${add} END`,
  ];
}

/** The words of the blocks and titles written before the index existed, in batches in key order. */
async function fillSearchColumns(tx: SqlExecutor): Promise<void> {
  let after: [string, string] = ["", ""];
  for (;;) {
    const rows = await tx.all<{ document_id: string; id: string; text: string }>(
      `SELECT document_id, id, text FROM blocks WHERE document_id > ? OR (document_id = ? AND id > ?)
        ORDER BY document_id, id LIMIT 500`,
      [after[0], after[0], after[1]],
    );
    if (rows.length === 0) break;
    for (const row of rows) {
      const words = searchText(row.text);
      if (words)
        await tx.run(`UPDATE blocks SET search_text = ? WHERE document_id = ? AND id = ?`, [
          words,
          row.document_id,
          row.id,
        ]);
    }
    const last = rows.at(-1)!;
    after = [last.document_id, last.id];
  }
  const pages = await tx.all<{ id: string; title: string }>(`SELECT id, title FROM pages`);
  for (const page of pages) {
    const words = searchText(page.title);
    if (words) await tx.run(`UPDATE pages SET search_title = ? WHERE id = ?`, [words, page.id]);
  }
}

export const LATEST_SCHEMA_VERSION = MIGRATIONS.at(-1)!.version;

/** Every version, in order: not 1..LATEST, since the numbers reserved for work on other branches may be absent. */
export const SCHEMA_VERSIONS: readonly number[] = MIGRATIONS.map((migration) => migration.version);

/** Bring the database to the latest version; safe to call from many processes at once. */
export async function migrate(
  driver: SqlDriver,
  clock: Clock = systemClock,
  /** Stop after this version (tests that build a database as an older release left it). */
  upTo: number = Number.POSITIVE_INFINITY,
): Promise<{ applied: number[] }> {
  return driver.withMigrationLock(async () => {
    await driver.exec(
      `CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)`,
    );
    const applied: number[] = [];
    for (const migration of MIGRATIONS) {
      if (migration.version > upTo) break;
      if (migration.online) {
        const online = migration.online;
        const pending = !(await driver.get(`SELECT version FROM schema_migrations WHERE version = ?`, [
          migration.version,
        ]));
        if (pending) await inSession(driver, (session) => online(session, driver.dialect, clock.now()));
      }
      const done = await driver.transaction(async (tx) => {
        const row = await tx.get(`SELECT version FROM schema_migrations WHERE version = ?`, [migration.version]);
        if (row) return false;
        for (const statement of migration.statements(driver.dialect)) await tx.run(statement);
        await migration.after?.(tx);
        await tx.run(`INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)`, [
          migration.version,
          migration.name,
          clock.now().toISOString(),
        ]);
        return true;
      });
      if (done) applied.push(migration.version);
    }
    return { applied };
  });
}

/**
 * Columns one engine keeps for itself: PostgreSQL's written order of blocks for search (migration 21; SQLite uses the
 * rowid). A copy between engines leaves them out (the target numbers rows as they land), and so does a comparison.
 */
export const ENGINE_ONLY_COLUMNS: ReadonlySet<string> = new Set(["search_order"]);

/** Business tables, in an order that respects foreign keys when copying data. */
export const BUSINESS_TABLES = [
  "users",
  "workspaces",
  "members",
  "pages",
  "page_grants",
  "blocks",
  "tokens",
  "commands",
  "idempotency",
  "nodes",
  "edges",
  "audit_log",
  "proposals",
  "ask_sessions",
  "oauth_clients",
  "oauth_requests",
  "oauth_refresh_tokens",
  "invitations",
  "comment_threads",
  "comments",
] as const;

/**
 * SQLite, version 22: the block index's triggers note a changed block in `block_search_recent` instead of writing
 * FTS5. A noted row keeps what FTS5 holds for that rowid (`indexed_text`: the block's words at the last fold, NULL
 * for a block written since), so the fold can take exactly that out of the external-content index before it adds the
 * block's current words — FTS5 must be told the very text it indexed. A block noted again keeps its first note. The
 * fold runs when a note makes `FOLD_AT` of them, in the transaction of the write that made it (`CROSS JOIN`: from the
 * notes out, whatever statistics an operator's ANALYZE left). `foldAt` is the property test's (a smaller number folds
 * more often). FTS5's `'rebuild'` reads every block afresh, so it must empty `block_search_recent` in the same
 * transaction (the notes would then name text the index no longer holds); FTS5's `'integrity-check'` against the
 * blocks holds only right after a fold.
 */
export function blockSearchThroughRecent(foldAt: number): string[] {
  const note = (row: "new" | "old", indexed: string) =>
    `INSERT INTO block_search_recent (rowid, indexed_text) SELECT ${row}.rowid, ${indexed}
       WHERE NOT EXISTS (SELECT 1 FROM block_search_recent WHERE rowid = ${row}.rowid);`;
  return [
    `DROP TRIGGER block_search_insert`,
    `DROP TRIGGER block_search_delete`,
    `DROP TRIGGER block_search_update`,
    `CREATE TABLE block_search_recent (rowid INTEGER PRIMARY KEY, indexed_text TEXT)`,
    `CREATE TRIGGER block_search_insert AFTER INSERT ON blocks BEGIN ${note("new", "NULL")} END`,
    `CREATE TRIGGER block_search_delete AFTER DELETE ON blocks BEGIN ${note("old", "old.search_text")} END`,
    `CREATE TRIGGER block_search_update AFTER UPDATE OF search_text ON blocks BEGIN ${note("old", "old.search_text")} END`,
    blockSearchFoldTrigger(foldAt),
  ];
}

/** The trigger that folds the noted blocks into FTS5 in the write whose note makes `foldAt` of them. */
export function blockSearchFoldTrigger(foldAt: number): string {
  return `CREATE TRIGGER block_search_fold AFTER INSERT ON block_search_recent
       WHEN (SELECT COUNT(*) FROM block_search_recent) >= ${foldAt}
     BEGIN ${FOLD_BLOCK_SEARCH} END`;
}

/** The fold (SQLite): what FTS5 holds for each noted block out, its current words in, the notes emptied. */
export const FOLD_BLOCK_SEARCH = `
  INSERT INTO block_search (block_search, rowid, search_text)
    SELECT 'delete', rowid, indexed_text FROM block_search_recent WHERE indexed_text IS NOT NULL;
  INSERT INTO block_search (rowid, search_text)
    SELECT b.rowid, b.search_text FROM block_search_recent r CROSS JOIN blocks b ON b.rowid = r.rowid;
  DELETE FROM block_search_recent;`;
