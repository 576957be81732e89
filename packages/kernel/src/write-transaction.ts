/**
 * The write transaction: lock the page, answer a replay or a conflict, apply the command, and record
 * the command, its idempotency key, the proposal it settles and its audit record, all or nothing.
 */
import { DEFAULT_PAGE_OPTIONS } from "@mnote/contract";
import { BlockIdTaken, applyCommand, CommandRejected } from "./command-appliers";
import { CommentRejected } from "./comments";
import { AUDIT_INSERT, auditValues, PROPOSALS_APPLY, settleProposal } from "./audit-records";
import type { Announce } from "./change-feed";
import type { Clock } from "./clock";
import { EditRejected } from "./block-edits";
import { newId } from "./ids";
import { searchText } from "./search-words";
import { identityValues, IDENTITY_COLUMNS, PAGE_COLUMNS, type PageRow, placeholders, toPage } from "./rows";
import { type SqlDriver, type SqlExecutor, UniqueViolation } from "./sql/driver";
import type { ExecuteOutcome, ExecuteRequest } from "./types";

const MAX_UNIQUE_RETRIES = 3;

const COMMAND_INSERT = `INSERT INTO commands (id, name, ${IDENTITY_COLUMNS}, payload_fingerprint, idempotency_key,
    revision_before, revision_after, undo, created_at)
  VALUES (${placeholders(19)})`;

/**
 * Runs kernel commands on `db`; the statement that locks the page row is built once per driver. A committed
 * write is announced on the change feed from inside its transaction (`announce`, decision 0017).
 */
export function createWriteTransaction(
  db: SqlDriver,
  announce: Announce,
  clock: Clock,
): (request: ExecuteRequest) => Promise<ExecuteOutcome> {
  // Reads the page row a write is about to change, locking it where the database has row locks.
  const lockPageSql = `SELECT ${PAGE_COLUMNS} FROM pages WHERE id = ? AND workspace_id = ? AND removed_at IS NULL${db.forUpdate}`;
  return (request) => execute(db, lockPageSql, request, announce, clock);
}

async function execute(
  db: SqlDriver,
  lockPageSql: string,
  request: ExecuteRequest,
  announce: Announce,
  clock: Clock,
): Promise<ExecuteOutcome> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await db.transaction((tx) => executeIn(tx, lockPageSql, request, announce, clock.now().toISOString()));
    } catch (error) {
      if (error instanceof CommandRejected || error instanceof EditRejected || error instanceof CommentRejected)
        return { kind: "rejected", message: error.message };
      if (error instanceof BlockIdTaken) return { kind: "block_id_taken" };
      // Another process inserted the same idempotency key first: run again and find its record.
      if (error instanceof UniqueViolation && attempt < MAX_UNIQUE_RETRIES) continue;
      throw error;
    }
  }
}

async function insertNewPage(
  tx: SqlExecutor,
  identity: ExecuteRequest["identity"],
  title: string,
  isPrivate: boolean,
  now: string,
) {
  await tx.run(
    // search_title: the workspace search finds a created page by its title, like a page the admin made (issue 34).
    `INSERT INTO pages (id, workspace_id, title, is_private, options, revision, block_count, created_by, created_at, updated_at, search_title)
     VALUES (?, ?, ?, ?, ?, 0, 0, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING`,
    [
      identity.documentId,
      identity.workspaceId,
      title,
      isPrivate ? 1 : 0,
      JSON.stringify(DEFAULT_PAGE_OPTIONS),
      identity.actorId,
      now,
      now,
      searchText(title),
    ],
  );
}

async function executeIn(
  tx: SqlExecutor,
  lockPageSql: string,
  request: ExecuteRequest,
  announce: Announce,
  now: string,
): Promise<ExecuteOutcome> {
  const { identity, command, idempotency } = request;
  // A new page's row comes first, empty at revision 0, so the create locks and checks its key like any write. Its id
  // comes from the key (decision 0046): a retry, or a concurrent copy of the call, meets the row and then the key.
  if (command.name === "page.create") await insertNewPage(tx, identity, command.title, command.isPrivate, now);
  // Lock the page row first: every write to one page queues here, so revision checks cannot race.
  const pageRow = await tx.get<PageRow>(lockPageSql, [identity.documentId, identity.workspaceId]);
  // A removed page is missing, but a retry of the call that created it still hears its stored answer.
  if (!pageRow && command.name !== "page.create") return { kind: "page_missing" };

  // A separate statement, after the lock: on PostgreSQL (read committed) it sees a key stored by the
  // transaction we waited for; a join in the locking read would use the snapshot from before the wait.
  const existing = await tx.get<{ fingerprint: string; command_id: string; result: string }>(
    `SELECT fingerprint, command_id, result FROM idempotency
     WHERE workspace_id = ? AND actor_id = ? AND tool_name = ? AND key = ? AND expires_at > ?`,
    [identity.workspaceId, identity.actorId, identity.toolName, idempotency.key, now],
  );
  if (existing) {
    if (existing.fingerprint !== idempotency.fingerprint) return { kind: "idempotency_conflict" };
    return {
      kind: "replayed",
      commandId: existing.command_id,
      result: JSON.parse(existing.result) as Record<string, unknown>,
    };
  }
  if (!pageRow) return { kind: "page_missing" };
  const page = toPage(pageRow);
  if (request.baseRevision !== undefined && request.baseRevision !== page.revision) {
    return { kind: "revision_conflict", currentRevision: page.revision };
  }

  const commandId = newId("cmd");
  const applied = await applyCommand(tx, page, command, {
    commandId,
    actorId: identity.actorId,
    holder: identity.holder,
    tokenId: identity.tokenId,
    now,
    blockCount: Number(pageRow.block_count),
  });
  const revisionAfter = applied.bumpsRevision ? page.revision + 1 : page.revision;
  if (applied.bumpsRevision) {
    // One statement for the page row: the new revision, and the block count when the body changed.
    const updated = await tx.run(
      `UPDATE pages SET revision = ?, updated_at = ?, block_count = COALESCE(?, block_count) WHERE id = ? AND revision = ?`,
      [revisionAfter, now, applied.blockCount ?? null, page.id, page.revision],
    );
    if (updated.changes !== 1) throw new Error("page revision moved under a held lock");
  }
  const result = {
    commandName: command.name,
    ...applied.result,
    ...(applied.bumpsRevision ? { revision: revisionAfter } : {}),
  };

  await tx.run(COMMAND_INSERT, [
    commandId,
    command.name,
    ...identityValues(identity),
    idempotency.fingerprint,
    idempotency.key,
    page.revision,
    revisionAfter,
    applied.undo ? JSON.stringify(applied.undo) : null,
    now,
  ]);
  const stored = await tx.run(
    // A record for this scope that is past its retention window is replaced in the same statement;
    // an unexpired one means another transaction won a race for the key (0 rows changed: run again).
    `INSERT INTO idempotency (workspace_id, actor_id, tool_name, key, fingerprint, command_id, result, created_at, expires_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (workspace_id, actor_id, tool_name, key) DO UPDATE SET fingerprint = excluded.fingerprint,
       command_id = excluded.command_id, result = excluded.result, created_at = excluded.created_at,
       expires_at = excluded.expires_at
     WHERE idempotency.expires_at <= excluded.created_at`,
    [
      identity.workspaceId,
      identity.actorId,
      identity.toolName,
      idempotency.key,
      idempotency.fingerprint,
      commandId,
      JSON.stringify(result),
      now,
      idempotency.expiresAt,
    ],
  );
  if (stored.changes !== 1) throw new UniqueViolation("idempotency key taken by a concurrent transaction");
  // A person's decision on a proposal commits with its write, or neither does (decision 0016): first, so
  // that the proposal is still pending when it is looked at.
  if (
    request.settles &&
    !(await settleProposal(tx, request.settles, {
      commandId,
      documentId: page.id,
      at: now,
      decidedBy: identity.actorId,
    }))
  ) {
    throw new CommandRejected("the proposal was decided meanwhile; nothing was written");
  }
  // The edit a person approved (or an agent retried after approval) is no longer pending.
  await tx.run(PROPOSALS_APPLY, [
    commandId,
    now,
    identity.actorId,
    identity.documentId,
    identity.toolName,
    idempotency.key,
    idempotency.fingerprint,
  ]);
  // A write's audit record is written in its own transaction; nobody needs its id back.
  await tx.run(
    AUDIT_INSERT,
    auditValues(
      {
        identity,
        effect: "write",
        outcome: "ok",
        commandId,
        idempotencyKey: idempotency.key,
        payloadFingerprint: idempotency.fingerprint,
        baseRevision: request.baseRevision ?? null,
        detail:
          typeof request.auditDetail === "function"
            ? request.auditDetail({ namedBlocks: applied.namedBlocks ?? [] })
            : (request.auditDetail ?? null),
      },
      now,
    ),
  );
  await announce(tx, {
    workspaceId: identity.workspaceId,
    documentId: identity.documentId,
    kind: "write",
    revision: revisionAfter,
  });
  return {
    kind: "applied",
    commandId,
    commandName: command.name,
    revisionBefore: page.revision,
    revisionAfter,
    result,
  };
}
