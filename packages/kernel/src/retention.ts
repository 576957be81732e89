/**
 * Retention: what the kernel removes once it is old enough, and what it never removes (issue 39, decision 0035).
 *
 * Audit records older than the retention go, in bounded batches (SQLite, and on PostgreSQL the partitions that are
 * not a whole month: the old table, the kept and default partitions) or a month's partition at once (PostgreSQL).
 * A record is KEPT past retention while something still needs it (`NEEDED` below):
 *  - the record of a pending proposal: it holds the args and preview the person decides on;
 *  - the record of an applied write (a command): the revert rule reads who wrote it, with which tool, from it, and
 *    a command can be reverted as long as the page's command log has it (the log is never pruned);
 *  - every record of an Ask Hermes run still running: the panel follows the run's calls while it runs.
 * Before a month's partition is dropped its kept records move to the kept partition (month 0), with their `at`.
 * A decided proposal's index row goes with its audit record.
 *
 * The expired-records sweep removes what can grant or block nothing any more: idempotency records past their
 * `expires_at` (MNOTE_IDEMPOTENCY_TTL_HOURS), rate windows that ended, tokens expired or revoked longer than the
 * audit retention ago (no trail record names them any more, and no live OAuth refresh token needs them), and the
 * OAuth leftovers of decision 0027 (oauth.ts `purgeExpired`).
 *
 * On PostgreSQL each sweep runs on a session of its own holding an advisory lock, so with several bridges and
 * panels on one database one instance at a time does it and the others skip (`skipped: 1`). Every statement is one
 * short transaction; the partition swaps wait at most `lock_timeout` for their lock and are retried next time.
 */
import { ensureMonthPartitions, KEPT_MONTH, listMonthPartitions, monthPartition, monthStart } from "./audit-partitions";
import type { Clock } from "./clock";
import type { KernelOAuth } from "./oauth";
import { inSession, type SqlDriver, type SqlExecutor } from "./sql/driver";

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
  /** PostgreSQL: the audit partitions of this month and the next two (also run by `sweepAudit` and at open). */
  ensurePartitions(now: Date): Promise<{ created: number; failed: number }>;
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
 * What retention may never remove (see the module comment); `a` is the audit_log row. One rule, used by the
 * row-by-row delete and by the move before a partition drop.
 */
const NEEDED = `(a.id IN (SELECT p.audit_id FROM proposals p WHERE p.status = 'pending')
  OR (a.effect = 'write' AND a.outcome = 'ok' AND a.command_id IS NOT NULL)
  OR a.run_id IN (SELECT r.run_id FROM ask_runs r WHERE r.status = 'running'))`;

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
 * among them: one short transaction (SQLite: one turn of the writer).
 */
async function deleteRange(
  db: SqlDriver,
  session: SqlExecutor,
  range: { after: number; last: number; cutoff: string; readCutoff: string },
) {
  const removable = `a.id > ? AND a.id <= ? AND (a.at < ? OR (a.effect = 'read' AND a.at < ?)) AND NOT ${NEEDED}`;
  const params = [range.after, range.last, range.cutoff, range.readCutoff];
  return inOneTransaction(db, session, async (tx) => {
    await tx.run(
      `DELETE FROM proposals WHERE status <> 'pending' AND audit_id IN (SELECT a.id FROM audit_log a WHERE ${removable})`,
      params,
    );
    return (await tx.run(`DELETE FROM audit_log WHERE id IN (SELECT a.id FROM audit_log a WHERE ${removable})`, params))
      .changes;
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
 * PostgreSQL: one month past retention. Its needed records move to the kept partition (batches, writes go on),
 * the decided proposals' index rows of the rest go, and then, in one short transaction, the partition is detached
 * and dropped after moving anything needed that came up meanwhile. Null when the drop had to give up (its lock not
 * had within lock_timeout): the next run tries again.
 */
async function dropMonth(db: SqlDriver, session: SqlExecutor, month: number, batchSize: number, spend: () => boolean) {
  let moved = 0;
  const needed = `SELECT a.id FROM audit_log a WHERE a.month = ${month} AND ${NEEDED}`;
  for (;;) {
    if (!spend()) return null;
    const { changes } = await session.run(
      `UPDATE audit_log SET month = ${KEPT_MONTH} WHERE month = ${month} AND id IN (${needed} LIMIT ${batchSize})`,
    );
    moved += changes;
    if (changes < batchSize) break;
    await yieldToCalls();
  }
  const name = monthPartition(month);
  try {
    const dropped = await inOneTransaction(db, session, async (tx) => {
      moved += (await tx.run(`UPDATE audit_log SET month = ${KEPT_MONTH} WHERE month = ${month} AND id IN (${needed})`))
        .changes;
      await tx.run(`DELETE FROM proposals WHERE status <> 'pending' AND audit_id IN (SELECT id FROM ${name})`);
      const count = await tx.get<{ n: number | string }>(`SELECT COUNT(*) AS n FROM ${name}`);
      await tx.run(`ALTER TABLE audit_log DETACH PARTITION ${name}`);
      await tx.run(`DROP TABLE ${name}`);
      return Number(count?.n ?? 0);
    });
    return { moved, records: dropped };
  } catch {
    // Most likely the lock was not had within lock_timeout; everything rolled back, the next run tries again.
    return null;
  }
}
