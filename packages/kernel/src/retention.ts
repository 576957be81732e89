/**
 * Retention: what the kernel removes once it is old enough, and what it never removes (issue 39, decision 0035).
 *
 * Audit records older than the retention go, in bounded batches (SQLite, and on PostgreSQL the partitions that are
 * not a whole month: the old table, the kept and default partitions) or a month's partition at once (PostgreSQL).
 * A record is KEPT past retention while something still needs it (`neededIds` below, the one rule every removal runs):
 *  - the record of a pending proposal: it holds the args and preview the person decides on;
 *  - the record of an applied write (a command): the revert rule reads who wrote it, with which tool, from it, and
 *    a command can be reverted as long as the page's command log has it (the log is never pruned);
 *  - every record of an Ask Hermes run still running: the panel follows the run's calls while it runs.
 * Before a month's partition is dropped its kept records move to the kept partition (month 0), with their `at`.
 * A decided proposal's index row goes with its audit record. The partition is detached with `DETACH PARTITION …
 * CONCURRENTLY` and dropped once it is a table of its own, so no step locks audit_log against the calls' inserts
 * (decision 0041).
 *
 * The expired-records sweep removes what can grant or block nothing any more: idempotency records past their
 * `expires_at` (MNOTE_IDEMPOTENCY_TTL_HOURS), rate windows that ended, tokens expired or revoked longer than the
 * audit retention ago (no trail record names them any more, and no live OAuth refresh token needs them), and the
 * OAuth leftovers of decision 0027 (oauth.ts `purgeExpired`).
 *
 * On PostgreSQL each sweep runs on a session of its own holding an advisory lock, so with several bridges and
 * panels on one database one instance at a time does it and the others skip (`skipped: 1`). Every statement is one
 * short transaction; a step that does not get its lock within `lock_timeout` is taken up again by the next run.
 */
import {
  AUDIT_RECORD_COLUMNS,
  detachedMonths,
  ensureMonthPartitions,
  KEPT_MONTH,
  listMonthPartitions,
  monthPartition,
  monthStart,
} from "./audit-partitions";
import type { Clock } from "./clock";
import type { KernelOAuth } from "./oauth";
import { inSession, type SqlDriver, type SqlExecutor, type SqlValue } from "./sql/driver";

export interface AuditRetention {
  /** Records older than this many days go (MNOTE_AUDIT_RETENTION_DAYS). */
  days: number;
  /** Reads may go sooner (MNOTE_AUDIT_READ_RETENTION_DAYS, at most `days`); default `days`. */
  readDays?: number;
  /** Rows per statement; default 250 on SQLite (a batch holds the one writer: ~5 ms), 1000 on PostgreSQL. */
  batchSize?: number;
  /** Statements per run at most (the rest waits for the next run); default 1000. */
  maxBatches?: number;
}

export interface AuditSweep {
  /** Records deleted row by row. */
  removed: number;
  /** Month partitions dropped (PostgreSQL), and the records they held. */
  partitionsDropped: number;
  droppedRecords: number;
  /** Records moved to the kept partition before their month's partition was dropped. */
  moved: number;
  /** Month partitions created ahead (PostgreSQL). */
  partitionsCreated: number;
  /** 1 when another instance was sweeping (PostgreSQL), so this one did nothing. */
  skipped: number;
  /** 1 when the run stopped at `maxBatches` with more to remove. */
  more: number;
}

export interface ExpiredSweep {
  idempotency: number;
  rateWindows: number;
  tokens: number;
  refreshTokens: number;
  requests: number;
  clients: number;
  skipped: number;
}

export interface KernelHousekeeping {
  /** Audit retention (see above); `now` is the caller's clock time (the scheduler passes the kernel's). */
  sweepAudit(now: Date, retention: AuditRetention): Promise<AuditSweep>;
  /** Expired idempotency records, rate windows, tokens and OAuth leftovers, `batchSize` rows per statement. */
  sweepExpired(now: Date, options: { tokenGraceDays: number; batchSize?: number }): Promise<ExpiredSweep>;
  /** PostgreSQL: the audit partitions of this month and the next ones (also run by `sweepAudit` and at open). */
  ensurePartitions(now: Date): Promise<{ created: number; failed: number }>;
  /**
   * Runs `fn` unless another instance runs the job called `name` right now (PostgreSQL: an advisory lock held on a
   * session of its own while `fn` runs; null when another instance holds it). On SQLite and PGlite, one process per
   * database, `fn` just runs. The audit stream uses it so that two instances do not push the same records.
   */
  alone<T>(name: string, fn: () => Promise<T>): Promise<T | null>;
}

const DAY_MS = 86_400_000;

/**
 * A turn of the event loop between two batches. SQLite's driver answers in microtasks only, so without it a sweep of
 * a million rows would hold the process — and every tool call waiting in it — until its last batch; with it, the
 * calls queued meanwhile run between batches (docs/benchmarks.md section 9 measures their p99).
 */
/**
 * Rows per statement unless the operator says (MNOTE_HOUSEKEEPING_BATCH). On SQLite a batch holds the one writer, and
 * every call of the process waits behind it: 1,000 rows (~19 ms) put the calls' p99 at 2.7× without a sweep (section
 * 9 of docs/benchmarks.md), so 250. PostgreSQL's calls wait for no batch but its row locks.
 */
const defaultBatch = (db: SqlDriver) => (db.dialect === "sqlite" ? 250 : 1000);

const yieldToCalls = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * What retention may never remove (see the module comment), as the one rule every removal runs: the ids of `table`
 * that something still needs, one arm per reason, so that each arm uses its index — pending proposals by id, applied
 * writes by the partial command index, running Ask runs only while one runs (the uncorrelated EXISTS is a one-time
 * filter: with no run running the arm reads nothing). `within` narrows every arm (the row sweep's id range, with
 * `withinParams` bound once per arm). Written as one OR instead, PostgreSQL reads every record of a month to answer
 * it, and a month of a million reads took seconds of the server's CPU from the calls (section 9 of
 * docs/benchmarks.md); in an id range of one batch the arms cost what the OR did (decision 0041).
 */
export function neededIds(table: string, within = "1 = 1", withinParams: readonly SqlValue[] = []) {
  const arms = [
    `SELECT a.id FROM ${table} a WHERE ${within} AND a.id IN (SELECT p.audit_id FROM proposals p WHERE p.status = 'pending')`,
    `SELECT a.id FROM ${table} a WHERE ${within} AND a.command_id IS NOT NULL AND a.effect = 'write' AND a.outcome = 'ok'`,
    `SELECT a.id FROM ${table} a WHERE ${within}
       AND EXISTS (SELECT 1 FROM ask_runs r0 WHERE r0.status = 'running')
       AND a.run_id IN (SELECT r.run_id FROM ask_runs r WHERE r.status = 'running')`,
  ];
  return { sql: arms.join(" UNION "), params: arms.flatMap(() => withinParams) };
}

/** Advisory-lock class for housekeeping ("mnhk"); the second key names the sweep and the schema. */
const HOUSEKEEPING_LOCK_CLASS = 0x6d6e686b;

/** Runs `fn` on a session of its own; on PostgreSQL only if no other instance holds this sweep's lock (else null). */
async function exclusively<T>(
  db: SqlDriver,
  name: string,
  fn: (session: SqlExecutor) => Promise<T>,
): Promise<T | null> {
  return inSession(db, async (session) => {
    if (db.dialect !== "postgres") return fn(session);
    const key = `?, hashtext(coalesce(current_schema(), '') || ?)`;
    const got = await session.get<{ ok: boolean }>(`SELECT pg_try_advisory_lock(${key}) AS ok`, [
      HOUSEKEEPING_LOCK_CLASS,
      name,
    ]);
    if (!got?.ok) return null;
    try {
      // A partition swap waits this long for its lock at most: it never queues the tool calls behind it for longer.
      await session.run(`SET lock_timeout = '2s'`);
      // Its commits need not wait for the WAL's flush: a batch lost in a crash is removed again by the next run, and
      // nothing else reads what a sweep did. The calls' own commits then share the flushes with fewer of its.
      await session.run(`SET synchronous_commit = off`);
      // One core at most: a month's drop counts its records (a scan of the whole partition), which PostgreSQL would
      // spread over parallel workers, taking every core of a small server from the calls for that moment.
      await session.run(`SET max_parallel_workers_per_gather = 0`);
      return await fn(session);
    } finally {
      await session
        .get(`SELECT pg_advisory_unlock(${key}) AS ok`, [HOUSEKEEPING_LOCK_CLASS, name])
        .catch(() => undefined);
    }
  });
}

const emptyAudit = (): AuditSweep => ({
  removed: 0,
  partitionsDropped: 0,
  droppedRecords: 0,
  moved: 0,
  partitionsCreated: 0,
  skipped: 0,
  more: 0,
});

export function createHousekeeping(db: SqlDriver, _clock: Clock, oauth: KernelOAuth): KernelHousekeeping {
  return {
    ensurePartitions: (now) => inSession(db, (session) => ensureMonthPartitions(session, db.dialect, now)),

    alone: (name, fn) => exclusively(db, name, () => fn()),

    async sweepAudit(now, retention) {
      const result = await exclusively(db, "audit", async (session) => {
        const sweep = emptyAudit();
        const batchSize = retention.batchSize ?? defaultBatch(db);
        let budget = retention.maxBatches ?? 1000;
        const cutoff = new Date(now.getTime() - retention.days * DAY_MS).toISOString();
        const readDays = Math.min(retention.readDays ?? retention.days, retention.days);
        const readCutoff = new Date(now.getTime() - readDays * DAY_MS).toISOString();
        if (db.dialect === "postgres") {
          sweep.partitionsCreated = (await ensureMonthPartitions(session, db.dialect, now)).created;
          // A month detached by a run that stopped before dropping it: finish it (all its records are checked).
          for (const month of await detachedMonths(session)) {
            if (monthStart(month, 1) > cutoff || budget-- <= 0) continue;
            const dropped = await dropDetached(db, session, month);
            if (!dropped) continue;
            sweep.moved += dropped.moved;
            sweep.droppedRecords += dropped.records;
            sweep.partitionsDropped += 1;
          }
          // Whole months past retention: keep what is needed, then drop the partition.
          for (const month of await listMonthPartitions(session)) {
            if (monthStart(month, 1) > cutoff || budget <= 0) break;
            const dropped = await dropMonth(db, session, month, batchSize, () => --budget >= 0);
            if (!dropped) break;
            sweep.moved += dropped.moved;
            sweep.droppedRecords += dropped.records;
            sweep.partitionsDropped += 1;
          }
        }
        // Row by row: every record past its cutoff in what was not dropped, oldest first, one id range a statement.
        const oldest = readCutoff > cutoff ? readCutoff : cutoff;
        let after = 0;
        while (budget > 0) {
          const page = await session.all<{ id: number; at: string }>(
            `SELECT id, at FROM audit_log WHERE id > ? ORDER BY id LIMIT ${batchSize}`,
            [after],
          );
          const past = page.filter((row) => row.at < oldest);
          if (past.length === 0) break;
          const last = Number(past.at(-1)!.id);
          budget -= 1;
          sweep.removed += await deleteRange(db, session, { after, last, cutoff, readCutoff });
          after = last;
          await yieldToCalls();
          // A page that holds a record inside retention reached the present: the ids after it are newer still.
          if (past.length < page.length || page.length < batchSize) break;
        }
        if (budget <= 0) sweep.more = 1;
        return sweep;
      });
      return result ?? { ...emptyAudit(), skipped: 1 };
    },

    async sweepExpired(now, options) {
      const batchSize = options.batchSize ?? defaultBatch(db);
      const result = await exclusively(db, "expired", async (session) => {
        const current = now.toISOString();
        const tokenCutoff = new Date(now.getTime() - options.tokenGraceDays * DAY_MS).toISOString();
        const idempotency = await inBatches(
          session,
          `DELETE FROM idempotency WHERE (workspace_id, actor_id, tool_name, key) IN (
             SELECT workspace_id, actor_id, tool_name, key FROM idempotency WHERE expires_at <= ? LIMIT ${batchSize})`,
          [current],
          batchSize,
        );
        const rateWindows = await inBatches(
          session,
          `DELETE FROM rate_windows WHERE (key, window_start) IN (
             SELECT key, window_start FROM rate_windows WHERE expires_at <= ? LIMIT ${batchSize})`,
          [current],
          batchSize,
        );
        // A token that ended long ago grants nothing; an OAuth grant lives while a refresh token of it does.
        const tokens = await inBatches(
          session,
          `DELETE FROM tokens WHERE id IN (
             SELECT t.id FROM tokens t WHERE ((t.expires_at IS NOT NULL AND t.expires_at <= ?)
               OR (t.revoked_at IS NOT NULL AND t.revoked_at <= ?))
               AND NOT EXISTS (SELECT 1 FROM oauth_refresh_tokens r WHERE r.token_id = t.id AND r.expires_at > ?)
               AND NOT EXISTS (SELECT 1 FROM oauth_requests q WHERE q.token_id = t.id)
             LIMIT ${batchSize})`,
          [tokenCutoff, tokenCutoff, current],
          batchSize,
        );
        return { idempotency, rateWindows, tokens, ...(await oauth.purgeExpired(now)), skipped: 0 };
      });
      return (
        result ?? { idempotency: 0, rateWindows: 0, tokens: 0, refreshTokens: 0, requests: 0, clients: 0, skipped: 1 }
      );
    },
  };
}

/** Runs a bounded DELETE until it removes fewer than a batch; answers how many rows went. */
async function inBatches(session: SqlExecutor, sql: string, params: (string | number)[], batchSize: number) {
  let total = 0;
  for (;;) {
    const { changes } = await session.run(sql, params);
    total += changes;
    if (changes < batchSize) return total;
    await yieldToCalls();
  }
}

/**
 * The records of ids (after, last] past their cutoff and not needed, with the index rows of the decided proposals
 * among them. PostgreSQL: one statement (its own transaction on the sweep's session), the proposals' rows removed by
 * a second DELETE in its WITH from the ids the first one returns — one round trip and one commit a batch where a
 * BEGIN, two DELETEs that each evaluated the rule and a COMMIT took four (section 9 of docs/benchmarks.md). SQLite
 * has no DELETE in WITH: two statements in one transaction (one turn of the writer).
 */
async function deleteRange(
  db: SqlDriver,
  session: SqlExecutor,
  range: { after: number; last: number; cutoff: string; readCutoff: string },
) {
  const needed = neededIds("audit_log", "a.id > ? AND a.id <= ?", [range.after, range.last]);
  // Each partition is read by its own id index; `id IN (SELECT …)` made PostgreSQL probe every partition per id.
  const removable = `a.id > ? AND a.id <= ? AND (a.at < ? OR (a.effect = 'read' AND a.at < ?))
    AND a.id NOT IN (${needed.sql})`;
  const params = [range.after, range.last, range.cutoff, range.readCutoff, ...needed.params];
  if (db.dialect === "postgres") {
    const row = await session.get<{ n: number | string }>(
      `WITH gone AS (DELETE FROM audit_log AS a WHERE ${removable} RETURNING a.id),
         decided AS (DELETE FROM proposals WHERE status <> 'pending' AND audit_id IN (SELECT id FROM gone))
       SELECT COUNT(*) AS n FROM gone`,
      params,
    );
    return Number(row?.n ?? 0);
  }
  return inOneTransaction(db, session, async (tx) => {
    await tx.run(
      `DELETE FROM proposals WHERE status <> 'pending' AND audit_id IN (SELECT a.id FROM audit_log a WHERE ${removable})`,
      params,
    );
    return (await tx.run(`DELETE FROM audit_log AS a WHERE ${removable}`, params)).changes;
  });
}

/**
 * One transaction on the sweep's session. An in-process database has no session of its own (its statements take
 * turns with the calls'), so there the driver's own transaction keeps a call's statement out of it.
 */
async function inOneTransaction<T>(db: SqlDriver, session: SqlExecutor, fn: (tx: SqlExecutor) => Promise<T>) {
  if (!db.session) return db.transaction(fn);
  await session.run("BEGIN");
  try {
    const result = await fn(session);
    await session.run("COMMIT");
    return result;
  } catch (error) {
    await session.run("ROLLBACK").catch(() => undefined);
    throw error;
  }
}

/**
 * PostgreSQL: one month past retention, without ever locking audit_log against the calls (decision 0041):
 *  1. its needed records move to the kept partition, in batches (row locks only; writes go on);
 *  2. the partition is detached with `DETACH PARTITION … CONCURRENTLY`: SHARE UPDATE EXCLUSIVE on audit_log, which
 *     no insert or read waits for; it waits itself for the transactions that might still use the partition. It may
 *     not run in a transaction: the sweep's session runs each statement on its own (PGlite's driver too, between
 *     the transactions of the calls);
 *  3. the detached table is dropped (`dropDetached`).
 * Null when a step had to give up (its lock not had within lock_timeout): the next run takes it up again — an
 * interrupted concurrent detach is finished (`detachedMonths`), a detached table dropped.
 */
async function dropMonth(db: SqlDriver, session: SqlExecutor, month: number, batchSize: number, spend: () => boolean) {
  let moved = 0;
  const name = monthPartition(month);
  for (;;) {
    if (!spend()) return null;
    const needed = neededIds(name);
    const { changes } = await session.run(
      `UPDATE audit_log SET month = ${KEPT_MONTH} WHERE month = ${month} AND id IN (
         SELECT id FROM (${needed.sql}) n LIMIT ${batchSize})`,
      needed.params,
    );
    moved += changes;
    if (changes < batchSize) break;
    await yieldToCalls();
  }
  try {
    // Its waits block nobody (see above), so it may wait longer than the sweep's other steps.
    await session.run(`SET lock_timeout = '30s'`);
    try {
      await session.run(`ALTER TABLE audit_log DETACH PARTITION ${name} CONCURRENTLY`);
    } finally {
      await session.run(`SET lock_timeout = '2s'`);
    }
  } catch {
    return null;
  }
  const dropped = await dropDetached(db, session, month);
  return dropped && { moved: moved + dropped.moved, records: dropped.records };
}

/**
 * PostgreSQL: drops a month's detached table in one short transaction that locks that table only. What is still
 * needed in it goes to the kept partition first: none in the ordinary course (the moves took it, and a past month
 * gets no new records), but a record written in that month by a transaction still open when the moves looked is
 * there now — the concurrent detach waited for every such transaction (`neededIds`). The index rows of
 * the decided proposals among its records go with it. If the table was attached again meanwhile (a kernel writing
 * in that month, `ensureMonthPartition`), it is left for the next run.
 */
async function dropDetached(db: SqlDriver, session: SqlExecutor, month: number) {
  const name = monthPartition(month);
  const kept = AUDIT_RECORD_COLUMNS.replace(/\bmonth\b/, `${KEPT_MONTH} AS month`);
  try {
    return await inOneTransaction(db, session, async (tx) => {
      await tx.run(`LOCK TABLE ${name} IN ACCESS EXCLUSIVE MODE`);
      const attached = await tx.get(`SELECT 1 AS ok FROM pg_inherits WHERE inhrelid = to_regclass(?)`, [name]);
      if (attached) return null;
      const needed = neededIds(name);
      const moved = (
        await tx.run(
          `INSERT INTO audit_log (${AUDIT_RECORD_COLUMNS}) SELECT ${kept} FROM ${name} WHERE id IN (${needed.sql})`,
          needed.params,
        )
      ).changes;
      await tx.run(
        `DELETE FROM proposals p WHERE p.status <> 'pending' AND EXISTS (SELECT 1 FROM ${name} a WHERE a.id = p.audit_id)
           AND NOT EXISTS (SELECT 1 FROM audit_log k WHERE k.month = ${KEPT_MONTH} AND k.id = p.audit_id)`,
      );
      const count = await tx.get<{ n: number | string }>(`SELECT COUNT(*) AS n FROM ${name}`);
      await tx.run(`DROP TABLE ${name}`);
      return { moved, records: Number(count?.n ?? 0) - moved };
    });
  } catch {
    // Most likely the lock was not had within lock_timeout; everything rolled back, the next run tries again.
    return null;
  }
}
