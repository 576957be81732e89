/**
 * The audit log by month (issue 39, decisions 0035 and 0041). Every record carries `month` (yyyymm of its `at`, UTC).
 * On PostgreSQL `audit_log` is partitioned by LIST on that column: one partition a month (`audit_log_m202601`), one
 * for the records kept past retention because something still needs them (`audit_log_kept`, month 0) and the table
 * as it was before version 12 (`audit_log_before_months`, month NULL). There is no default partition (version 18):
 * with one, PostgreSQL refuses `DETACH PARTITION … CONCURRENTLY`, and dropping a month would take ACCESS EXCLUSIVE
 * on audit_log and queue every call's audit insert behind it. Instead a month's partition exists before its first
 * record: made ahead at open and by every sweep, and by the kernel before it writes in a month it has not checked
 * (audit-month-guard.ts). Retention then detaches a month concurrently and drops it (retention.ts). SQLite keeps one
 * table; the column is there too, so the kernel writes one INSERT on every database.
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
    // Removed again by version 18 (`dropDefaultPartitionOnline`, decision 0041); an applied version is never edited.
    `CREATE TABLE audit_log_other PARTITION OF audit_log DEFAULT`,
    streams,
  ];
}

/** Months with a partition at any time: the clock's month and the ones after it (created ahead). */
export const MONTHS_AHEAD = 3;

/**
 * PostgreSQL: the partition of `month`, made when it has none. Made as a table of its own and then attached:
 * `ATTACH PARTITION` takes SHARE UPDATE EXCLUSIVE on audit_log, which lets every insert and read through, where
 * `CREATE TABLE … PARTITION OF` would take ACCESS EXCLUSIVE and queue every call behind it (decision 0041). With no
 * default partition, attaching scans nothing but the new, empty table. A table of that name that is not attached
 * (one whose making stopped half-way) is attached as it is. Several processes may do this at once: whoever loses the
 * race finds the month attached and answers false.
 */
export async function ensureMonthPartition(db: SqlExecutor, month: number): Promise<boolean> {
  if (await isAttached(db, month)) return false;
  const name = monthPartition(month);
  try {
    await db.run(`CREATE TABLE IF NOT EXISTS ${name} (LIKE audit_log INCLUDING DEFAULTS)`);
    await db.run(`ALTER TABLE audit_log ATTACH PARTITION ${name} FOR VALUES IN (${month})`);
    return true;
  } catch (error) {
    if (await isAttached(db, month)) return false;
    throw error;
  }
}

const isAttached = async (db: SqlExecutor, month: number) =>
  Boolean(
    await db.get(
      `SELECT 1 AS ok FROM pg_inherits i
       WHERE i.inhparent = to_regclass('audit_log') AND i.inhrelid = to_regclass(?) AND NOT i.inhdetachpending`,
      [monthPartition(month)],
    ),
  );

/** PostgreSQL with months (version 12 on): is audit_log partitioned here? */
async function isPartitioned(db: SqlExecutor): Promise<boolean> {
  const parent = await db.get<{ kind: string }>(
    `SELECT relkind AS kind FROM pg_class WHERE oid = to_regclass('audit_log')`,
  );
  return parent?.kind === "p";
}

/**
 * PostgreSQL: the partitions of `now`'s month and the next ones (`MONTHS_AHEAD` in all), made when missing: at open,
 * by every sweep, and by the kernel before it writes in a month it has not checked yet (audit-month-guard.ts), so an
 * insert always finds its month although audit_log has no default partition (decision 0041).
 */
export async function ensureMonthPartitions(
  session: SqlExecutor,
  dialect: SqlDriver["dialect"],
  now: Date,
): Promise<{ created: number; failed: number }> {
  if (dialect !== "postgres" || !(await isPartitioned(session))) return { created: 0, failed: 0 };
  const current = auditMonth(now.toISOString());
  let created = 0;
  let failed = 0;
  for (let add = 0; add < MONTHS_AHEAD; add++) {
    try {
      if (await ensureMonthPartition(session, auditMonth(monthStart(current, add)))) created += 1;
    } catch {
      failed += 1;
    }
  }
  return { created, failed };
}

const monthOf = (name: string) => /^audit_log_m(\d{6})$/.exec(name)?.[1];
const months = (rows: { name: string }[]) =>
  rows
    .map((row) => monthOf(row.name))
    .filter((month): month is string => month !== undefined)
    .map(Number)
    .sort((a, b) => a - b);

/** PostgreSQL: the month partitions attached now (not the kept or old ones, nor one being detached), oldest first. */
export async function listMonthPartitions(session: SqlExecutor): Promise<number[]> {
  return months(
    await session.all<{ name: string }>(
      `SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
       WHERE i.inhparent = to_regclass('audit_log') AND NOT i.inhdetachpending`,
    ),
  );
}

/**
 * PostgreSQL: months whose partition a sweep detached and did not drop yet (the process stopped in between). A
 * detach that stopped half-way (`DETACH … CONCURRENTLY` interrupted: the partition is "pending detach", and a table
 * may have one such at a time) is finished first.
 */
export async function detachedMonths(session: SqlExecutor): Promise<number[]> {
  const pending = await session.all<{ name: string }>(
    `SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
     WHERE i.inhparent = to_regclass('audit_log') AND i.inhdetachpending`,
  );
  for (const { name } of pending) {
    // Waits like the detach did; if it gives up too, the partition stays pending for the next run.
    await session.run(`ALTER TABLE audit_log DETACH PARTITION ${name} FINALIZE`).catch(() => undefined);
  }
  return months(
    await session.all<{ name: string }>(
      `SELECT c.relname AS name FROM pg_class c
       WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind = 'r' AND NOT c.relispartition
         AND c.relname LIKE 'audit_log_m%'`,
    ),
  );
}

/** The columns an audit record has, `id` first (moving records between tables names them all). */
export const AUDIT_RECORD_COLUMNS = `id, ${AUDIT_COLUMNS.split(",")
  .map((column) => column.trim().split(/\s+/)[0])
  .join(", ")}`;

/** Version 18's table of records the default partition held. */
const OLD_DEFAULT = "audit_log_other";

/**
 * Version 18, before its (empty) transaction, PostgreSQL: audit_log loses its default partition, online. First the
 * months around now get their partitions (so no insert needs the default any more); then the default is detached
 * — a catalog change under a brief ACCESS EXCLUSIVE on audit_log, waited for at most 10 s — and the records it held
 * (months that had no partition yet: copied by `migrate-data`, or written with a clock far ahead) go to partitions
 * of their months in batches, ids and times unchanged, each batch one statement. A start that stops half-way
 * continues here: the detached table is still there, with what was not moved yet.
 */
export async function dropDefaultPartitionOnline(
  session: SqlExecutor,
  dialect: SqlDriver["dialect"],
  now: Date,
): Promise<void> {
  if (dialect !== "postgres" || !(await isPartitioned(session))) return;
  await ensureMonthPartitions(session, dialect, now);
  const attached = await session.get(
    `SELECT 1 AS ok FROM pg_inherits WHERE inhparent = to_regclass('audit_log') AND inhrelid = to_regclass(?)`,
    [OLD_DEFAULT],
  );
  if (attached) {
    await session.run(`SET lock_timeout = '10s'`);
    await session.run(`ALTER TABLE audit_log DETACH PARTITION ${OLD_DEFAULT}`);
    await session.run(`RESET lock_timeout`);
  }
  if (!(await session.get(`SELECT 1 AS ok FROM pg_class WHERE oid = to_regclass(?)`, [OLD_DEFAULT]))) return;
  const held = await session.all<{ month: number }>(
    `SELECT DISTINCT month FROM ${OLD_DEFAULT} WHERE month IS NOT NULL AND month <> ${KEPT_MONTH}`,
  );
  for (const { month } of held) await ensureMonthPartition(session, Number(month));
  for (;;) {
    const { changes } = await session.run(
      `WITH moved AS (
         DELETE FROM ${OLD_DEFAULT} WHERE id IN (SELECT id FROM ${OLD_DEFAULT} ORDER BY id LIMIT 1000)
         RETURNING ${AUDIT_RECORD_COLUMNS})
       INSERT INTO audit_log (${AUDIT_RECORD_COLUMNS}) SELECT ${AUDIT_RECORD_COLUMNS} FROM moved`,
    );
    if (changes === 0) break;
  }
  await session.run(`DROP TABLE ${OLD_DEFAULT}`);
}
