/**
 * Audit records, and the proposals index kept beside them: a proposed or held edit is indexed in the
 * same transaction as its audit record, and a rejected one is marked decided.
 */
import type { Announce } from "./change-feed";
import { identityValues, IDENTITY_COLUMNS, placeholders } from "./rows";
import type { SqlDriver, SqlExecutor, SqlValue } from "./sql/driver";
import type { AuditInput } from "./types";

export const AUDIT_INSERT = `INSERT INTO audit_log (at, ${IDENTITY_COLUMNS}, effect, outcome, error_code, command_id, idempotency_key,
    payload_fingerprint, base_revision, detail, duration_ms)
  VALUES (${placeholders(21)})`;

export function auditValues(record: AuditInput, at: string): SqlValue[] {
  return [
    at,
    ...identityValues(record.identity),
    record.effect,
    record.outcome,
    record.errorCode ?? null,
    record.commandId ?? null,
    record.idempotencyKey ?? null,
    record.payloadFingerprint ?? null,
    record.baseRevision ?? null,
    record.detail ? JSON.stringify(record.detail) : null,
    record.durationMs === undefined || record.durationMs === null ? null : Math.round(record.durationMs),
  ];
}

/** An audit record on its own (every call that is not a write), answering its id. */
async function insertAudit(db: SqlDriver, record: AuditInput, at: string): Promise<number> {
  const row = await db.insertReturning<{ id: number | string }>(
    `${AUDIT_INSERT} RETURNING id`,
    auditValues(record, at),
  );
  return Number(row!.id);
}

/** An audit record inside an open transaction, answering its id. */
async function insertAuditIn(tx: SqlExecutor, record: AuditInput, at: string): Promise<number> {
  const row = await tx.get<{ id: number | string }>(`${AUDIT_INSERT} RETURNING id`, auditValues(record, at));
  return Number(row!.id);
}

/**
 * The edit an audit record proposes or rejects, when it does: the proposals index knows an edit by
 * its page, tool, idempotency key and payload fingerprint, whatever the tool is.
 */
function editOf(record: AuditInput) {
  const proposes = record.outcome === "proposal" || record.outcome === "held_for_approval";
  if (!proposes && record.outcome !== "rejected") return null;
  const { documentId, toolName } = record.identity;
  if (!documentId || !record.idempotencyKey || !record.payloadFingerprint || (proposes && !record.detail)) return null;
  return { documentId, toolName, key: record.idempotencyKey, fingerprint: record.payloadFingerprint };
}

const PROPOSAL_INSERT = `INSERT INTO proposals (audit_id, at, ${IDENTITY_COLUMNS}, idempotency_key, payload_fingerprint,
    base_revision, held, status, command_id, decided_at, summary)
  VALUES (${placeholders(21)})`;
export const PROPOSALS_APPLY = `UPDATE proposals SET status = 'applied', command_id = ?, decided_at = ?
  WHERE document_id = ? AND tool_name = ? AND idempotency_key = ? AND payload_fingerprint = ? AND status = 'pending'`;
const PROPOSALS_REJECT = `UPDATE proposals SET status = 'rejected', decided_at = ?
  WHERE document_id = ? AND tool_name = ? AND idempotency_key = ? AND payload_fingerprint = ? AND status = 'pending'`;

/** Announces an audit record on its page (records without a page change nothing a panel shows); answers its id. */
async function announced(
  db: SqlExecutor,
  announce: Announce,
  record: AuditInput,
  auditId: number,
  kind: "audit" | "proposal",
) {
  const { workspaceId, documentId } = record.identity;
  if (workspaceId && documentId) await announce(db, { workspaceId, documentId, kind, auditId });
  return auditId;
}

/** Appends `record` (and indexes the edit it proposes or rejects), announcing it on the change feed (decision 0017). */
export function appendAudit(db: SqlDriver, record: AuditInput, announce: Announce): Promise<number> {
  const at = new Date().toISOString();
  const edit = editOf(record);
  if (!edit) return insertAudit(db, record, at).then((id) => announced(db, announce, record, id, "audit"));
  if (record.outcome === "rejected") {
    return db.transaction(async (tx) => {
      const id = await insertAuditIn(tx, record, at);
      await tx.run(PROPOSALS_REJECT, [at, edit.documentId, edit.toolName, edit.key, edit.fingerprint]);
      return announced(tx, announce, record, id, "proposal");
    });
  }
  return db.transaction(async (tx) => {
    // Queue behind a write to this page (PostgreSQL's row lock; SQLite has one writer): a write of the same
    // edit either committed before, and its command is found here, or runs after and finds this row pending.
    if (db.forUpdate) await tx.get(`SELECT id FROM pages WHERE id = ?${db.forUpdate}`, [edit.documentId]);
    const applied = await tx.get<{ id: string }>(
      `SELECT id FROM commands WHERE document_id = ? AND tool_name = ? AND idempotency_key = ? AND payload_fingerprint = ?
       ORDER BY id LIMIT 1`,
      [edit.documentId, edit.toolName, edit.key, edit.fingerprint],
    );
    const id = await insertAuditIn(tx, record, at);
    await tx.run(PROPOSAL_INSERT, [
      id,
      at,
      ...identityValues(record.identity),
      edit.key,
      edit.fingerprint,
      record.baseRevision ?? null,
      record.outcome === "held_for_approval" ? 1 : 0,
      applied ? "applied" : "pending",
      applied?.id ?? null,
      applied ? at : null,
      record.summary ? JSON.stringify(record.summary) : null,
    ]);
    return announced(tx, announce, record, id, "proposal");
  });
}
