/**
 * The audit log by month (issue 39, decision 0035). Every record carries `month` (yyyymm of its `at`, UTC). On
 * PostgreSQL `audit_log` is partitioned by LIST on that column: one partition a month (`audit_log_m202601`), one for
 * the records kept past retention because something still needs them (`audit_log_kept`, month 0), the table as it
 * was before this version (`audit_log_before_months`, month NULL) and a default partition for a month whose partition
 * does not exist yet (`audit_log_other`), so an insert never fails for want of a partition. Retention then drops a
 * month's partition instead of deleting its rows (retention.ts). SQLite keeps one table; the column is there too, so
 * the kernel writes one INSERT on every database.
 */
import type { SqlDriver, SqlExecutor } from "./sql/driver";

/** The month an audit record made at `at` (an ISO string, UTC) belongs to, as yyyymm. */
export const auditMonth = (at: string): number => Number(at.slice(0, 4)) * 100 + Number(at.slice(5, 7));

/** Month 0: the partition of records retention keeps past their month (retention.ts moves them there). */
export const KEPT_MONTH = 0;

export const monthPartition = (month: number) => `audit_log_m${month}`;

/** The first instant of month yyyymm + `add` months, as the ISO string the kernel stores. */
export function monthStart(month: number, add = 0): string {
  const year = Math.floor(month / 100);
  const index = (month % 100) - 1 + add;
  return new Date(Date.UTC(year, index, 1)).toISOString();
}

/**
 * Before the transaction (PostgreSQL): the column, a proof that every existing row has none (so attaching the old
 * table as the NULL partition scans nothing), and the indexes the partitioned table's indexes take over on it. Each
 * step waits on no writer for long: ADD COLUMN without a default is a catalog change, VALIDATE and CONCURRENTLY take
 * locks that let writes through. A brief lock_timeout on the two ACCESS EXCLUSIVE steps makes a busy table fail the
 * start (retried by the next start) rather than queue every call behind the migration.
 */
export async function auditMonthsOnline(session: SqlExecutor, dialect: SqlDriver["dialect"]): Promise<void> {
  if (dialect !== "postgres") return;
  const partitioned = await session.get<{ kind: string }>(
    `SELECT c.relkind AS kind FROM pg_class c WHERE c.oid = to_regclass('audit_log')`,
  );
  if (partitioned?.kind !== "r") return;
  // A small table (a new database, a test's) is migrated in the transaction, where building its indexes takes
  // milliseconds; the online steps are for a table whose index builds would hold writers up.
  const rows = await session.get<{ n: number }>(
    `SELECT COUNT(*)::int AS n FROM (SELECT 1 FROM audit_log LIMIT ${ONLINE_FROM_ROWS}) sample`,
  );
  if ((rows?.n ?? 0) < ONLINE_FROM_ROWS) return;
  await session.run(`SET lock_timeout = '10s'`);
  await session.run(`ALTER TABLE audit_log ADD COLUMN IF NOT EXISTS month INTEGER`);
  const check = await session.get(
    `SELECT 1 AS ok FROM pg_constraint WHERE conname = 'audit_log_before_months' AND conrelid = to_regclass('audit_log')`,
  );
  if (!check)
    await session.run(`ALTER TABLE audit_log ADD CONSTRAINT audit_log_before_months CHECK (month IS NULL) NOT VALID`);
  // The steps below take SHARE UPDATE EXCLUSIVE, which lets every write through, so waiting costs callers nothing.
  // They get a longer lock_timeout than the brief one: CREATE INDEX CONCURRENTLY waits for every older transaction in
  // the whole database (other schemas' too), and that wait counts as a lock wait (seen failing the start under load).
  await session.run(`SET lock_timeout = '120s'`);
  await session.run(`ALTER TABLE audit_log VALIDATE CONSTRAINT audit_log_before_months`);
  // An interrupted CONCURRENTLY build leaves an invalid index behind; drop it so the build starts over.
  for (const name of ["audit_before_months_id", "audit_before_months_by_command"]) {
    const invalid = await session.get(
      `SELECT 1 AS bad FROM pg_index i WHERE i.indexrelid = to_regclass(?) AND NOT i.indisvalid`,
      [name],
    );
    if (invalid) await session.run(`DROP INDEX CONCURRENTLY IF EXISTS ${name}`);
  }
  await session.run(`CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS audit_before_months_id ON audit_log (id, month)`);
  await session.run(
    `CREATE INDEX CONCURRENTLY IF NOT EXISTS audit_before_months_by_command ON audit_log (command_id)
     WHERE command_id IS NOT NULL`,
  );
  await session.run(`RESET lock_timeout`);
}

/** From this many records the old table is prepared online (below, the transaction does it all). */
export const ONLINE_FROM_ROWS = 10_000;

/** The columns of `audit_log`, in the order the table has them after version 5 (ATTACH compares names and types). */
const AUDIT_COLUMNS = `at TEXT NOT NULL, tool_name TEXT NOT NULL, effect TEXT NOT NULL, outcome TEXT NOT NULL, error_code TEXT,
  workspace_id TEXT, document_id TEXT, actor_id TEXT, token_id TEXT, holder TEXT,
  session_id TEXT, run_id TEXT, tool_call_id TEXT, trace_id TEXT, command_id TEXT,
  idempotency_key TEXT, payload_fingerprint TEXT, base_revision INTEGER, detail TEXT, duration_ms INTEGER,
  asked_by TEXT, month INTEGER`;

/**
 * In the migration's transaction. SQLite: the column, and the command index without the reads (a read has no
 * command; decision 0035). PostgreSQL: the old table becomes the partition of month NULL under a partitioned
 * `audit_log` with the same columns, ids continuing from its highest. Catalog changes only: the indexes were built
 * online, the CHECK proves the partition's bound, so nothing here reads the rows.
 */
export function auditMonthsStatements(dialect: SqlDriver["dialect"]): string[] {
  // Where each stream of audit records to an operator's endpoint stopped (not business data: never copied).
  const streams = `CREATE TABLE audit_streams (target TEXT PRIMARY KEY, after_id BIGINT NOT NULL, updated_at TEXT NOT NULL)`;
  if (dialect === "sqlite")
    return [
      streams,
      `ALTER TABLE audit_log ADD COLUMN month INTEGER`,
      `DROP INDEX audit_by_command`,
      `CREATE INDEX audit_by_command ON audit_log (command_id) WHERE command_id IS NOT NULL`,
    ];
  return [
    // A partitioned table's unique keys must contain the partition column, so `id` alone is no key any more:
    // the proposals index keeps pointing at its record by id, and retention keeps the two together (retention.ts).
    `ALTER TABLE proposals DROP CONSTRAINT IF EXISTS proposals_audit_id_fkey`,
    // Done online for a large table; a small one gets its column here (ATTACH then checks its few rows and builds
    // the indexes it lacks).
    `ALTER TABLE audit_log ADD COLUMN IF NOT EXISTS month INTEGER`,
    // A partition may not have an identity column; the ids go on from a sequence of the new table.
    `ALTER TABLE audit_log ALTER COLUMN id DROP IDENTITY IF EXISTS`,
    `ALTER TABLE audit_log RENAME TO audit_log_before_months`,
    `ALTER INDEX audit_by_document RENAME TO audit_before_months_by_document`,
    `ALTER INDEX audit_by_token RENAME TO audit_before_months_by_token`,
    `DROP INDEX audit_by_command`,
    `CREATE SEQUENCE audit_log_id_seq`,
    `SELECT setval('audit_log_id_seq', (SELECT COALESCE(MAX(id), 0) + 1 FROM audit_log_before_months), false)`,
    `CREATE TABLE audit_log (id BIGINT NOT NULL DEFAULT nextval('audit_log_id_seq'), ${AUDIT_COLUMNS})
      PARTITION BY LIST (month)`,
    `ALTER SEQUENCE audit_log_id_seq OWNED BY audit_log.id`,
    `CREATE UNIQUE INDEX audit_log_id ON audit_log (id, month)`,
    `CREATE INDEX audit_by_document ON audit_log (document_id, id)`,
    `CREATE INDEX audit_by_command ON audit_log (command_id) WHERE command_id IS NOT NULL`,
    `CREATE INDEX audit_by_token ON audit_log (token_id, id)`,
    // Matching indexes exist on it (built online), so attaching takes them over instead of building.
    `ALTER TABLE audit_log ATTACH PARTITION audit_log_before_months FOR VALUES IN (NULL)`,
    `CREATE TABLE audit_log_kept PARTITION OF audit_log FOR VALUES IN (${KEPT_MONTH})`,
    `CREATE TABLE audit_log_other PARTITION OF audit_log DEFAULT`,
    streams,
  ];
}

/**
 * PostgreSQL: the partitions of this month and the next two, created when missing (at open and by every sweep), so
 * the default partition stays empty. Creating one while the default holds rows of its month fails (PostgreSQL would
 * have to move them); that month's records then stay in the default partition, where retention deletes them by row.
 */
export async function ensureMonthPartitions(
  session: SqlExecutor,
  dialect: SqlDriver["dialect"],
  now: Date,
): Promise<{ created: number; failed: number }> {
  if (dialect !== "postgres") return { created: 0, failed: 0 };
  const parent = await session.get<{ kind: string }>(
    `SELECT relkind AS kind FROM pg_class WHERE oid = to_regclass('audit_log')`,
  );
  if (parent?.kind !== "p") return { created: 0, failed: 0 };
  const current = auditMonth(now.toISOString());
  let created = 0;
  let failed = 0;
  for (let add = 0; add < 3; add++) {
    const month = auditMonth(monthStart(current, add));
    const name = monthPartition(month);
    const exists = await session.get(`SELECT 1 AS ok FROM pg_class WHERE oid = to_regclass(?)`, [name]);
    if (exists) continue;
    try {
      await session.run(`CREATE TABLE IF NOT EXISTS ${name} PARTITION OF audit_log FOR VALUES IN (${month})`);
      created += 1;
    } catch {
      failed += 1;
    }
  }
  return { created, failed };
}

/** PostgreSQL: the month partitions there are now (not the kept, old or default ones), oldest first. */
export async function listMonthPartitions(session: SqlExecutor): Promise<number[]> {
  const rows = await session.all<{ name: string }>(
    `SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
     WHERE i.inhparent = to_regclass('audit_log')`,
  );
  return rows
    .map((row) => /^audit_log_m(\d{6})$/.exec(row.name)?.[1])
    .filter((month): month is string => month !== undefined)
    .map(Number)
    .sort((a, b) => a - b);
}
