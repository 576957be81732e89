/**
 * On PostgreSQL audit_log has no default partition (decision 0041): an audit record whose month has no partition
 * would fail its insert, and with it the call. This driver makes sure the month exists first. Before a statement or
 * transaction that may write an audit record (`run`, `insertReturning`, `transaction`: how the kernel writes), it
 * compares the kernel's clock's month with the last month it checked; only when they differ — once a month in a
 * process, or whenever a test moves its clock into another month — it makes that month's partition and the next
 * ones (`ensureMonthPartitions`, on a session of its own) before the statement runs. The month after is made too,
 * so a record whose time falls just past midnight on the last day finds its month.
 *
 * Should an insert still find no partition (another instance, its clock far ahead, dropped this month as past
 * retention), the month is checked again and the statement or transaction run once more: it rolled back, and the
 * driver retries transactions the same way on a serialization failure.
 */
import { auditMonth, ensureMonthPartitions } from "./audit-partitions";
import type { Clock } from "./clock";
import { inSession, type SqlDriver } from "./sql/driver";

/** PostgreSQL's words when a row's partition key matches no partition (SQLSTATE 23514). */
const isMissingMonth = (error: unknown): boolean => {
  for (let cause = error; cause instanceof Error; cause = cause.cause)
    if (/no partition of relation "audit_log" found for row/.test(cause.message)) return true;
  return false;
};

export function guardAuditMonths(db: SqlDriver, clock: Clock): SqlDriver {
  if (db.dialect !== "postgres") return db;
  let checked: number | null = null;
  let checking: Promise<void> | null = null;
  /** Null when the clock's month was checked already (the common case: no await added). */
  const ready = (): Promise<void> | null => {
    const now = clock.now();
    const month = auditMonth(now.toISOString());
    if (month === checked) return null;
    checking ??= inSession(db, (session) => ensureMonthPartitions(session, db.dialect, now))
      .then(
        ({ failed }) => {
          if (failed === 0) checked = month;
        },
        // Not checked, so the next statement looks again; this one goes on (its month may well exist).
        () => undefined,
      )
      .finally(() => {
        checking = null;
      });
    return checking;
  };
  const guarded = async <T>(statement: () => Promise<T>): Promise<T> => {
    const wait = ready();
    if (wait) await wait;
    try {
      return await statement();
    } catch (error) {
      if (!isMissingMonth(error)) throw error;
      checked = null;
      await ready();
      return statement();
    }
  };
  return {
    ...db,
    run: (sql, params) => guarded(() => db.run(sql, params)),
    insertReturning: (sql, params) => guarded(() => db.insertReturning(sql, params)),
    transaction: (fn) => guarded(() => db.transaction(fn)),
  };
}
