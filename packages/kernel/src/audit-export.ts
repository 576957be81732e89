/**
 * Audit records for export and streaming (issue 39): oldest first by id, so a cursor (the last id handed out)
 * resumes an export or a stream exactly where it stopped, whatever was written since.
 */
import { auditMonth, KEPT_MONTH } from "./audit-partitions";
import { type AuditRow, toAudit } from "./rows";
import type { SqlExecutor, SqlValue } from "./sql/driver";
import type { AuditRecord } from "./types";

export interface AuditExportQuery {
  /** Records at or after this instant (ISO). */
  since: string;
  /** Records before this instant (ISO). */
  until: string;
  workspaceId?: string;
  /** The cursor: only records with a greater id. */
  afterId?: number;
  /** At most this many (1 to 5000). */
  limit: number;
}

export async function listAuditForExport(db: SqlExecutor, query: AuditExportQuery): Promise<AuditRecord[]> {
  // The month bound lets PostgreSQL look only at the partitions of the range (plus the kept and older ones).
  const where = ["id > ?", "at >= ?", "at < ?", `(month IS NULL OR month = ${KEPT_MONTH} OR month BETWEEN ? AND ?)`];
  const params: SqlValue[] = [
    query.afterId ?? 0,
    query.since,
    query.until,
    auditMonth(query.since),
    auditMonth(query.until),
  ];
  if (query.workspaceId !== undefined) {
    where.push("workspace_id = ?");
    params.push(query.workspaceId);
  }
  const limit = Math.min(Math.max(Math.floor(query.limit), 1), 5000);
  const rows = await db.all<AuditRow>(
    `SELECT * FROM audit_log WHERE ${where.join(" AND ")} ORDER BY id LIMIT ${limit}`,
    params,
  );
  return rows.map(toAudit);
}

/** Where a stream to `target` stopped: the last id it delivered (0: nothing yet). */
export async function getStreamCursor(db: SqlExecutor, target: string): Promise<number> {
  const row = await db.get<{ after_id: number | string }>(`SELECT after_id FROM audit_streams WHERE target = ?`, [
    target,
  ]);
  return Number(row?.after_id ?? 0);
}

/** Records that the stream to `target` delivered everything up to `afterId`; never moves a cursor back. */
export async function setStreamCursor(db: SqlExecutor, target: string, afterId: number, at: string): Promise<void> {
  await db.run(
    `INSERT INTO audit_streams (target, after_id, updated_at) VALUES (?, ?, ?)
     ON CONFLICT (target) DO UPDATE SET after_id = excluded.after_id, updated_at = excluded.updated_at
       WHERE audit_streams.after_id < excluded.after_id`,
    [target, afterId, at],
  );
}
