/**
 * Audit records, and the proposals index kept beside them: a proposed or held edit is indexed in the
 * same transaction as its audit record; a person's rejection is recorded and marked in one transaction.
 */
import type { Announce } from "./change-feed";
import { auditMonth } from "./audit-partitions";
import type { Clock } from "./clock";
import { identityValues, IDENTITY_COLUMNS, placeholders } from "./rows";
import type { SqlDriver, SqlExecutor, SqlValue } from "./sql/driver";
import type { AuditInput, ProposalRejection, ProposalSettlement } from "./types";

export const AUDIT_INSERT = `INSERT INTO audit_log (at, ${IDENTITY_COLUMNS}, effect, outcome, error_code, command_id, idempotency_key,
    payload_fingerprint, base_revision, detail, duration_ms, month)
  VALUES (${placeholders(22)})`;

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
    // The partition it goes to on PostgreSQL (audit-partitions.ts).
    auditMonth(at),
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
 * The edit an audit record proposes, when it does: the proposals index knows an edit by
 * its page, tool, idempotency key and payload fingerprint, whatever the tool is.
 */
function editOf(record: AuditInput) {
  const proposes = record.outcome === "proposal" || record.outcome === "held_for_approval";
  if (!proposes) return null;
  const { documentId, toolName } = record.identity;
  if (!documentId || !record.idempotencyKey || !record.payloadFingerprint || !record.detail) return null;
  return { documentId, toolName, key: record.idempotencyKey, fingerprint: record.payloadFingerprint };
}

const PROPOSAL_INSERT = `INSERT INTO proposals (audit_id, at, ${IDENTITY_COLUMNS}, idempotency_key, payload_fingerprint,
    base_revision, held, status, command_id, decided_at, summary)
  VALUES (${placeholders(21)})`;
/** A write of an edit applies its pending proposals, and records who decided (the writer). */
export const PROPOSALS_APPLY = `UPDATE proposals SET status = 'applied', command_id = ?, decided_at = ?, decided_by = ?
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

/** Appends `record` (and indexes the edit it proposes), announcing it on the change feed (decision 0017). */
export function appendAudit(db: SqlDriver, record: AuditInput, announce: Announce, clock: Clock): Promise<number> {
  const at = clock.now().toISOString();
  const edit = editOf(record);
  if (!edit) return insertAudit(db, record, at).then((id) => announced(db, announce, record, id, "audit"));
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

/** The edit (tool, key, payload) of a proposal still pending on a page, locked by the caller's page lock. */
async function pendingEdit(tx: SqlExecutor, proposalId: number, documentId: string) {
  return tx.get<{ tool_name: string; idempotency_key: string; payload_fingerprint: string }>(
    `SELECT tool_name, idempotency_key, payload_fingerprint FROM proposals WHERE audit_id = ? AND document_id = ? AND status = 'pending'`,
    [proposalId, documentId],
  );
}

/**
 * A person rejects a pending proposal: the `rejected` audit record and the proposal (with pending repeats of its
 * edit) marked rejected with who and why, all or nothing. Queued behind writes to the page (its row lock on
 * PostgreSQL; SQLite has one writer), so an approval racing it either committed first — and this answers null —
 * or runs after and finds the proposal decided.
 */
export function rejectProposal(
  db: SqlDriver,
  rejection: ProposalRejection,
  announce: Announce,
  clock: Clock,
): Promise<number | null> {
  const { record } = rejection;
  const { documentId } = record.identity;
  const at = clock.now().toISOString();
  return db.transaction(async (tx) => {
    if (db.forUpdate) await tx.get(`SELECT id FROM pages WHERE id = ?${db.forUpdate}`, [documentId]);
    const edit = await pendingEdit(tx, rejection.proposalId, documentId);
    if (!edit) return null;
    const id = await insertAuditIn(tx, record, at);
    await tx.run(
      `UPDATE proposals SET status = 'rejected', decided_at = ?, decided_by = ?, reason = ?
       WHERE document_id = ? AND tool_name = ? AND idempotency_key = ? AND payload_fingerprint = ? AND status = 'pending'`,
      [
        at,
        record.identity.actorId,
        rejection.reason,
        documentId,
        edit.tool_name,
        edit.idempotency_key,
        edit.payload_fingerprint,
      ],
    );
    return announced(tx, announce, record, id, "proposal");
  });
}

/**
 * Marks a pending proposal applied by the command just written, inside the write's transaction, with every
 * pending repeat of its edit (tool, key, payload), as a full write of the edit would: in part, with the
 * person's edits, or as shown. False when it is not pending on that page any more (decided meanwhile): the
 * caller rolls the write back.
 */
export async function settleProposal(
  tx: SqlExecutor,
  settlement: ProposalSettlement,
  write: { commandId: string; documentId: string; at: string; decidedBy: string },
): Promise<boolean> {
  const edit = await pendingEdit(tx, settlement.proposalId, write.documentId);
  if (!edit) return false;
  await tx.run(
    `UPDATE proposals SET status = 'applied', command_id = ?, decided_at = ?, decided_by = ?, applied_part = ?, edited = ?
     WHERE document_id = ? AND tool_name = ? AND idempotency_key = ? AND payload_fingerprint = ? AND status = 'pending'`,
    [
      write.commandId,
      write.at,
      write.decidedBy,
      settlement.part ? JSON.stringify({ kept: settlement.part.kept, total: settlement.part.total }) : null,
      settlement.edited ? 1 : 0,
      write.documentId,
      edit.tool_name,
      edit.idempotency_key,
      edit.payload_fingerprint,
    ],
  );
  return true;
}
