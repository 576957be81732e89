import { type Block, DEFAULT_PAGE_OPTIONS } from "@mnote/contract";
import { createAdmin } from "./admin";
import { newId } from "./ids";
import { migrate } from "./migrations";
import { applyUndo, insertBlocks, readBlocks, readPageState, replaceBlocks, type Undo } from "./page-state";
import { type BlockEditOperation, blockIdsNamed, EditRejected, type LocatedBlock, simulateBlockEdits } from "./block-edits";
import {
  type AuditRow,
  type BlockRow,
  toBlock,
  blockAttrs,
  type CommandRow,
  type EdgeRow,
  IDENTITY_COLUMNS,
  identityValues,
  type NodeRow,
  PAGE_COLUMNS,
  type PageRow,
  type ProposalRow,
  type TokenRow,
  toAudit,
  toCommand,
  toEdge,
  toNode,
  toPage,
  toProposal,
  toToken,
  toWorkspace,
  type WorkspaceRow,
} from "./rows";
import { type SqlDriver, type SqlExecutor, type SqlValue, UniqueViolation } from "./sql/driver";
import type {
  CallFacts,
  CallFactsQuery,
  AccessFacts,
  AuditInput,
  AuditQuery,
  ExecuteOutcome,
  ExecuteRequest,
  IdempotencyRecord,
  KernelAdapter,
  KernelCommand,
  PageRecord,
  PageState,
  ProposalQuery,
  BlockWindowQuery,
} from "./types";

/** A command that cannot apply to the page as it is; the transaction rolls back. */
class CommandRejected extends Error {}
/** An append met a block id already on the page (the write is rolled back). */
class BlockIdTaken extends Error {}

const MAX_UNIQUE_RETRIES = 3;
/** Pending proposals one list answers: a page with more is an agent flooding it, and the newest are shown. */
export const MAX_PENDING_PROPOSALS = 500;

type AccessRow = WorkspaceRow & { role: AccessFacts["role"]; access: "read" | "write" | null } & {
  [K in keyof PageRow as `page_${K}`]: PageRow[K] | null;
};
interface IdempotencyColumns {
  token_id: string;
  idem_fingerprint: string | null;
  idem_command_id: string | null;
  idem_result: string | null;
  idem_created_at: string | null;
  idem_expires_at: string | null;
}

/** The workspace (alias w), the member's role, the page and the member's grant on it. */
const ACCESS_COLUMNS = `w.id, w.name, w.approval_required, m.role,
  p.id AS page_id, p.workspace_id AS page_workspace_id, p.title AS page_title, p.is_private AS page_is_private,
  p.options AS page_options, p.revision AS page_revision, p.block_count AS page_block_count, g.access`;

/** Joins from workspace `w` to the user's membership, the page (`?`) and the user's grant; `user` is SQL for the user id. */
function accessJoins(user: string) {
  return `LEFT JOIN members m ON m.workspace_id = w.id AND m.user_id = ${user}
       LEFT JOIN pages p ON p.id = ? AND p.workspace_id = w.id
       LEFT JOIN page_grants g ON g.document_id = p.id AND g.user_id = ${user}`;
}

// Statements on every tool call are built once: a template built per call is a new string the
// driver's statement cache has to hash in full before it finds the prepared statement.
const ACCESS_FACTS_SQL = `SELECT ${ACCESS_COLUMNS}
  FROM workspaces w ${accessJoins("?")}
  WHERE w.id = ?`;

const CALL_FACTS_SQL = `SELECT t.id AS token_id, t.user_id, t.holder, t.scopes, t.label, t.expires_at, t.revoked_at, ${ACCESS_COLUMNS},
    i.fingerprint AS idem_fingerprint, i.command_id AS idem_command_id, i.result AS idem_result,
    i.created_at AS idem_created_at, i.expires_at AS idem_expires_at
  FROM tokens t
  LEFT JOIN workspaces w ON w.id = ? ${accessJoins("t.user_id")}
  LEFT JOIN idempotency i ON i.workspace_id = w.id AND i.actor_id = t.user_id AND i.tool_name = ? AND i.key = ?
    AND i.expires_at > ?
  WHERE t.token_hash = ?`;

function toAccessFacts(row: AccessRow | undefined): AccessFacts {
  if (!row) return { workspace: null, role: null, page: null, grant: null };
  const page =
    row.page_id === null
      ? null
      : toPage({
          id: row.page_id,
          workspace_id: row.page_workspace_id!,
          title: row.page_title!,
          is_private: row.page_is_private!,
          options: row.page_options!,
          revision: row.page_revision!,
          block_count: row.page_block_count!,
        });
  return { workspace: toWorkspace(row), role: row.role ?? null, page, grant: page ? (row.access ?? null) : null };
}

const placeholders = (count: number) => Array.from({ length: count }, () => "?").join(", ");
/** The IN-list sizes `findBlockIds` prepares statements for. */
const ID_LOOKUP_SLOTS = [1, 8, 64] as const;
const FIND_BLOCK_IDS_SQL = Object.fromEntries(
  ID_LOOKUP_SLOTS.map((slots) => [slots, `SELECT id FROM blocks WHERE document_id = ? AND id IN (${placeholders(slots)})`]),
) as Record<(typeof ID_LOOKUP_SLOTS)[number], string>;

const FIND_BLOCKS_SQL = Object.fromEntries(
  ID_LOOKUP_SLOTS.map((slots) => [
    slots,
    `SELECT id, type, text, attrs, position FROM blocks WHERE document_id = ? AND id IN (${placeholders(slots)})`,
  ]),
) as Record<(typeof ID_LOOKUP_SLOTS)[number], string>;

type LocatedRow = BlockRow & { position: number | string };
const toLocated = (row: LocatedRow): LocatedBlock => ({ block: toBlock(row), index: Number(row.position) });

/** Position-ordered reads of part of a page, on the (document_id, position) index. */
const WINDOW_SQL = {
  blocks: `SELECT id, type, text, attrs, position FROM blocks WHERE document_id = ? AND position >= ? ORDER BY position LIMIT ?`,
  headings: `SELECT id, type, text, attrs, position FROM blocks WHERE document_id = ? AND position >= ? AND type = 'heading'
    ORDER BY position LIMIT ?`,
  // LOWER on both sides: PostgreSQL's LIKE is case-sensitive, SQLite's is not (and lowers ASCII only).
  search: `SELECT id, type, text, attrs, position FROM blocks WHERE document_id = ? AND position >= ?
    AND LOWER(text) LIKE ? ESCAPE '!' ORDER BY position LIMIT ?`,
};
const likePattern = (text: string) => `%${text.toLowerCase().replace(/[!%_]/g, (c) => `!${c}`)}%`;

/** Runs `lookup` over `ids` in chunks padded to a few fixed IN-list sizes, so a handful of prepared statements serve every call. */
async function lookupByIds<T>(
  db: SqlExecutor,
  statements: Record<(typeof ID_LOOKUP_SLOTS)[number], string>,
  documentId: string,
  ids: readonly string[],
): Promise<T[]> {
  const found: T[] = [];
  const largest = ID_LOOKUP_SLOTS.at(-1)!;
  for (let start = 0; start < ids.length; start += largest) {
    const chunk = ids.slice(start, start + largest);
    const slots = ID_LOOKUP_SLOTS.find((size) => size >= chunk.length)!;
    const padded = [...chunk, ...Array<string>(slots - chunk.length).fill(chunk[0]!)];
    found.push(...(await db.all<T>(statements[slots], [documentId, ...padded])));
  }
  return found;
}

/** The kernel, written once over the SQL both SQLite and PostgreSQL speak. */
export class SqlKernel implements KernelAdapter {
  readonly admin;
  /** Reads the page row a write is about to change, locking it where the database has row locks. */
  private readonly lockPageSql: string;
  constructor(private readonly db: SqlDriver) {
    this.admin = createAdmin(db);
    this.lockPageSql = `SELECT ${PAGE_COLUMNS} FROM pages WHERE id = ? AND workspace_id = ?${db.forUpdate}`;
  }

  get dialect() {
    return this.db.dialect;
  }

  static async open(driver: SqlDriver): Promise<SqlKernel> {
    await migrate(driver);
    return new SqlKernel(driver);
  }

  close() {
    return this.db.close();
  }

  async ping() {
    await this.db.get("SELECT 1 AS ok");
  }

  async findTokenByHash(tokenHash: string) {
    const row = await this.db.get<TokenRow>(
      `SELECT id, user_id, holder, scopes, label, expires_at, revoked_at FROM tokens WHERE token_hash = ?`,
      [tokenHash],
    );
    return row ? toToken(row) : null;
  }

  async getAccessFacts(input: { workspaceId: string; documentId: string; userId: string }): Promise<AccessFacts> {
    // One statement instead of four (workspace, membership, page, grant): every statement saved is a
    // round of lock, bind and row building saved on every tool call.
    const row = await this.db.get<AccessRow>(ACCESS_FACTS_SQL, [input.userId, input.documentId, input.userId, input.workspaceId],
    );
    return toAccessFacts(row);
  }

  async getCallFacts(input: CallFactsQuery): Promise<CallFacts> {
    // The token, the caller's access and the key's stored result in one read: the checks in front of a
    // tool call decide on nothing else, and a write's rate is bounded by how many statements it runs.
    // A snapshot for the checks' fast path only; the write transaction checks the key and revision again.
    const row = await this.db.get<TokenRow & AccessRow & IdempotencyColumns>(CALL_FACTS_SQL, [
      input.workspaceId,
      input.documentId,
      input.idempotency?.toolName ?? null,
      input.idempotency?.key ?? null,
      input.idempotency?.now ?? null,
      input.tokenHash,
    ]);
    if (!row) return { token: null, access: toAccessFacts(undefined), idempotency: null };
    const token = toToken({ ...row, id: row.token_id });
    const idempotency: IdempotencyRecord | null =
      row.idem_fingerprint === null || !input.idempotency
        ? null
        : {
            workspaceId: input.workspaceId,
            actorId: token.userId,
            toolName: input.idempotency.toolName,
            key: input.idempotency.key,
            fingerprint: row.idem_fingerprint,
            commandId: row.idem_command_id!,
            result: JSON.parse(row.idem_result!) as Record<string, unknown>,
            createdAt: row.idem_created_at!,
            expiresAt: row.idem_expires_at!,
          };
    return { token, access: toAccessFacts(row.id === null ? undefined : row), idempotency };
  }

  async getPage(documentId: string) {
    const row = await this.db.get<PageRow>(`SELECT ${PAGE_COLUMNS} FROM pages WHERE id = ?`, [documentId]);
    return row ? toPage(row) : null;
  }

  getBlocks(documentId: string) {
    return readBlocks(this.db, documentId);
  }

  async findBlockIds(documentId: string, ids: readonly string[]) {
    // Point lookups on the primary key (document_id, id): an append costs the same on a page of
    // ten blocks or ten thousand.
    const rows = await lookupByIds<{ id: string }>(this.db, FIND_BLOCK_IDS_SQL, documentId, ids);
    return rows.map((row) => row.id);
  }

  findBlocks(documentId: string, ids: readonly string[]) {
    return findBlocksIn(this.db, documentId, ids);
  }

  async getBlockWindow(documentId: string, query: BlockWindowQuery) {
    const only = query.only;
    const rows = !only
      ? await this.db.all<LocatedRow>(WINDOW_SQL.blocks, [documentId, query.from, query.limit])
      : only.kind === "headings"
        ? await this.db.all<LocatedRow>(WINDOW_SQL.headings, [documentId, query.from, query.limit])
        : await this.db.all<LocatedRow>(WINDOW_SQL.search, [documentId, query.from, likePattern(only.text), query.limit]);
    return rows.map(toLocated);
  }

  async getSummary(documentId: string) {
    const row = await this.db.get<NodeRow>(`SELECT * FROM nodes WHERE document_id = ? AND kind = 'summary'`, [
      documentId,
    ]);
    return row ? toNode(row) : null;
  }

  async findIdempotency(
    scope: { workspaceId: string; actorId: string; toolName: string; key: string },
    now: string,
  ): Promise<IdempotencyRecord | null> {
    const row = await this.db.get<{
      fingerprint: string;
      command_id: string;
      result: string;
      created_at: string;
      expires_at: string;
    }>(
      `SELECT fingerprint, command_id, result, created_at, expires_at FROM idempotency
       WHERE workspace_id = ? AND actor_id = ? AND tool_name = ? AND key = ? AND expires_at > ?`,
      [scope.workspaceId, scope.actorId, scope.toolName, scope.key, now],
    );
    if (!row) return null;
    return {
      ...scope,
      fingerprint: row.fingerprint,
      commandId: row.command_id,
      result: JSON.parse(row.result) as Record<string, unknown>,
      createdAt: row.created_at,
      expiresAt: row.expires_at,
    };
  }

  async getPageStateBefore(commandId: string) {
    const command = await this.db.get<CommandRow>(`SELECT * FROM commands WHERE id = ?`, [commandId]);
    if (!command) return null;
    const state = await stateBefore(this.db, command);
    return state ? { documentId: command.document_id!, revision: Number(command.revision_before), state } : null;
  }

  async execute(request: ExecuteRequest): Promise<ExecuteOutcome> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.db.transaction((tx) => this.executeIn(tx, request));
      } catch (error) {
        if (error instanceof CommandRejected || error instanceof EditRejected) return { kind: "rejected", message: error.message };
        if (error instanceof BlockIdTaken) return { kind: "block_id_taken" };
        // Another process inserted the same idempotency key first: run again and find its record.
        if (error instanceof UniqueViolation && attempt < MAX_UNIQUE_RETRIES) continue;
        throw error;
      }
    }
  }

  private async executeIn(tx: SqlExecutor, request: ExecuteRequest): Promise<ExecuteOutcome> {
    const { identity, command, idempotency } = request;
    const now = new Date().toISOString();
    // Lock the page row first: every write to one page queues here, so revision checks cannot race.
    const pageRow = await tx.get<PageRow>(this.lockPageSql, [identity.documentId, identity.workspaceId]);
    if (!pageRow) return { kind: "page_missing" };
    const page = toPage(pageRow);

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
    if (request.baseRevision !== undefined && request.baseRevision !== page.revision) {
      return { kind: "revision_conflict", currentRevision: page.revision };
    }

    const commandId = newId("cmd");
    const applied = await applyCommand(tx, page, command, {
      commandId,
      actorId: identity.actorId,
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
    const result = { commandName: command.name, ...applied.result, ...(applied.bumpsRevision ? { revision: revisionAfter } : {}) };

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
    // The edit a person approved (or an agent retried after approval) is no longer pending.
    await tx.run(PROPOSALS_APPLY, [commandId, now, identity.documentId, identity.toolName, idempotency.key, idempotency.fingerprint]);
    // A write's audit record is written in its own transaction; nobody needs its id back.
    await tx.run(AUDIT_INSERT, auditValues({
      identity,
      effect: "write",
      outcome: "ok",
      commandId,
      idempotencyKey: idempotency.key,
      payloadFingerprint: idempotency.fingerprint,
      baseRevision: request.baseRevision ?? null,
      detail: request.auditDetail ?? null,
    }, now));
    return {
      kind: "applied",
      commandId,
      commandName: command.name,
      revisionBefore: page.revision,
      revisionAfter,
      result,
    };
  }

  appendAudit(record: AuditInput) {
    const at = new Date().toISOString();
    const edit = editOf(record);
    if (!edit) return insertAudit(this.db, record, at);
    if (record.outcome === "rejected") {
      return this.db.transaction(async (tx) => {
        const id = await insertAuditIn(tx, record, at);
        await tx.run(PROPOSALS_REJECT, [at, edit.documentId, edit.toolName, edit.key, edit.fingerprint]);
        return id;
      });
    }
    return this.db.transaction(async (tx) => {
      // Queue behind a write to this page (PostgreSQL's row lock; SQLite has one writer): a write of the same
      // edit either committed before, and its command is found here, or runs after and finds this row pending.
      if (this.db.forUpdate) await tx.get(`SELECT id FROM pages WHERE id = ?${this.db.forUpdate}`, [edit.documentId]);
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
      return id;
    });
  }

  async listProposals(query: ProposalQuery) {
    // Two walks of the (document_id, status, audit_id) index: every pending proposal, then the newest decided.
    const pending = await this.db.all<ProposalRow>(
      `SELECT * FROM proposals WHERE document_id = ? AND status = 'pending' AND workspace_id = ?
       ORDER BY audit_id DESC LIMIT ${MAX_PENDING_PROPOSALS}`,
      [query.documentId, query.workspaceId],
    );
    const decidedLimit = Math.min(Math.max(query.decidedLimit ?? 50, 0), 500);
    const decided = decidedLimit
      ? await this.db.all<ProposalRow>(
          `SELECT * FROM (
             SELECT * FROM proposals WHERE document_id = ? AND status = 'applied' AND workspace_id = ?
             ORDER BY audit_id DESC LIMIT ${decidedLimit}) a
           UNION ALL SELECT * FROM (
             SELECT * FROM proposals WHERE document_id = ? AND status = 'rejected' AND workspace_id = ?
             ORDER BY audit_id DESC LIMIT ${decidedLimit}) r
           ORDER BY audit_id DESC LIMIT ${decidedLimit}`,
          [query.documentId, query.workspaceId, query.documentId, query.workspaceId],
        )
      : [];
    return [...pending, ...decided].map(toProposal).sort((a, b) => b.auditId - a.auditId);
  }

  async getProposal(auditId: number) {
    const row = await this.db.get<ProposalRow>(`SELECT * FROM proposals WHERE audit_id = ?`, [auditId]);
    return row ? toProposal(row) : null;
  }

  async listAudit(query: AuditQuery) {
    const where: string[] = [];
    const params: SqlValue[] = [];
    const filters: Array<[keyof AuditQuery, string]> = [
      ["documentId", "document_id = ?"],
      ["workspaceId", "workspace_id = ?"],
      ["runId", "run_id = ?"],
      ["traceId", "trace_id = ?"],
      ["afterId", "id > ?"],
    ];
    for (const [field, clause] of filters) {
      const value = query[field];
      if (value !== undefined) {
        where.push(clause);
        params.push(value as SqlValue);
      }
    }
    const limit = Math.min(Math.max(query.limit ?? 200, 1), 1000);
    const rows = await this.db.all<AuditRow>(
      `SELECT * FROM audit_log ${where.length ? `WHERE ${where.join(" AND ")}` : ""} ORDER BY id DESC LIMIT ${limit}`,
      params,
    );
    return rows.map(toAudit);
  }

  async getAudit(id: number) {
    const row = await this.db.get<AuditRow>(`SELECT * FROM audit_log WHERE id = ?`, [id]);
    return row ? toAudit(row) : null;
  }

  async getCommand(commandId: string) {
    const row = await this.db.get<CommandRow>(`SELECT * FROM commands WHERE id = ?`, [commandId]);
    return row ? toCommand(row) : null;
  }

  async listArtifacts(documentId: string) {
    // Creation order. Two artifacts made in the same millisecond are ordered by the audit record of the
    // command that wrote them (audit ids only grow), not by their random ids.
    const byCommand = (node: string) => `(SELECT MIN(a.id) FROM audit_log a WHERE a.command_id = ${node}.command_id)`;
    const nodes = await this.db.all<NodeRow>(
      `SELECT n.* FROM nodes n WHERE n.document_id = ? ORDER BY n.created_at, ${byCommand("n")}, n.id`,
      [documentId],
    );
    const edges = await this.db.all<EdgeRow>(
      `SELECT e.* FROM edges e JOIN nodes n ON n.id = e.to_node_id
       WHERE e.from_document_id = ? ORDER BY e.created_at, ${byCommand("n")}, e.id`,
      [documentId],
    );
    return { nodes: nodes.map(toNode), edges: edges.map(toEdge) };
  }

  async purgeExpiredIdempotency(now: string) {
    return (await this.db.run(`DELETE FROM idempotency WHERE expires_at <= ?`, [now])).changes;
  }

  async countInWindow(key: string, windowStart: Date, windowMs: number) {
    const start = windowStart.toISOString();
    const expires = new Date(windowStart.getTime() + windowMs).toISOString();
    return this.db.transaction(async (tx) => {
      // Windows that ended are worth nothing; the index makes this a no-op most of the time.
      await tx.run(`DELETE FROM rate_windows WHERE expires_at <= ?`, [new Date().toISOString()]);
      const row = await tx.get<{ count: number | string }>(
        `INSERT INTO rate_windows (key, window_start, count, expires_at) VALUES (?, ?, 1, ?)
         ON CONFLICT (key, window_start) DO UPDATE SET count = rate_windows.count + 1 RETURNING count`,
        [key.slice(0, 200), start, expires],
      );
      return Number(row!.count);
    });
  }
}

const COMMAND_INSERT = `INSERT INTO commands (id, name, ${IDENTITY_COLUMNS}, payload_fingerprint, idempotency_key,
    revision_before, revision_after, undo, created_at)
  VALUES (${placeholders(18)})`;

const AUDIT_INSERT = `INSERT INTO audit_log (at, ${IDENTITY_COLUMNS}, effect, outcome, error_code, command_id, idempotency_key,
    payload_fingerprint, base_revision, detail, duration_ms)
  VALUES (${placeholders(20)})`;

function auditValues(record: AuditInput, at: string): SqlValue[] {
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
  const row = await db.insertReturning<{ id: number | string }>(`${AUDIT_INSERT} RETURNING id`, auditValues(record, at));
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
  VALUES (${placeholders(20)})`;
const PROPOSALS_APPLY = `UPDATE proposals SET status = 'applied', command_id = ?, decided_at = ?
  WHERE document_id = ? AND tool_name = ? AND idempotency_key = ? AND payload_fingerprint = ? AND status = 'pending'`;
const PROPOSALS_REJECT = `UPDATE proposals SET status = 'rejected', decided_at = ?
  WHERE document_id = ? AND tool_name = ? AND idempotency_key = ? AND payload_fingerprint = ? AND status = 'pending'`;

interface AppliedCommand {
  bumpsRevision: boolean;
  result: Record<string, unknown>;
  undo: Undo | null;
  /** The page's new block count, when the command changed the body (written with the revision). */
  blockCount?: number;
}

async function applyCommand(
  tx: SqlExecutor,
  page: PageRecord,
  command: KernelCommand,
  context: { commandId: string; actorId: string; now: string; blockCount: number },
): Promise<AppliedCommand> {
  switch (command.name) {
    case "page.body.save":
      return saveBody(tx, page, command.mode, command.blocks, context.blockCount);
    case "page.body.edit":
      return editBody(tx, page, command.operations, context.blockCount);
    case "page.head.updateTitle":
      await tx.run(`UPDATE pages SET title = ? WHERE id = ?`, [command.title, page.id]);
      return { bumpsRevision: true, result: {}, undo: { title: page.title } };
    case "page.layout.updateOptions": {
      const options = { ...DEFAULT_PAGE_OPTIONS, ...page.options, ...command.options };
      await tx.run(`UPDATE pages SET options = ? WHERE id = ?`, [JSON.stringify(options), page.id]);
      return { bumpsRevision: true, result: {}, undo: { options: page.options } };
    }
    case "artifact.summary.upsert":
      return upsertSummary(tx, page, command.summary, context);
    case "artifact.aiNote.create": {
      const nodeId = newId("node");
      const edgeId = newId("edge");
      await tx.run(
        `INSERT INTO nodes (id, workspace_id, document_id, kind, content, created_by, command_id, created_at, updated_at)
         VALUES (?, ?, ?, 'ai_note', ?, ?, ?, ?, ?)`,
        [nodeId, page.workspaceId, page.id, command.content, context.actorId, context.commandId, context.now, context.now],
      );
      await insertEdge(tx, edgeId, page, nodeId, context.now);
      return { bumpsRevision: false, result: { nodeId, edgeId }, undo: null };
    }
    case "page.revert":
      return revertPage(tx, page, command.targetCommandId);
  }
}

/** `before` is the page's block count, from the page row the transaction already read (and, on PostgreSQL, locked). */
async function saveBody(tx: SqlExecutor, page: PageRecord, mode: "replace" | "append", blocks: Block[], before: number) {
  if (mode === "append") {
    try {
      await insertBlocks(tx, page.id, blocks, before);
    } catch (error) {
      if (error instanceof UniqueViolation) throw new BlockIdTaken();
      throw error;
    }
    return { bumpsRevision: true, result: {}, undo: { truncateTo: before } satisfies Undo, blockCount: before + blocks.length };
  }
  const previous = await readBlocks(tx, page.id);
  try {
    await replaceBlocks(tx, page.id, blocks);
  } catch (error) {
    if (error instanceof UniqueViolation) throw new CommandRejected("content repeats a block id");
    throw error;
  }
  return { bumpsRevision: true, result: {}, undo: { blocks: previous } satisfies Undo, blockCount: blocks.length };
}

async function findBlocksIn(db: SqlExecutor, documentId: string, ids: readonly string[]) {
  return (await lookupByIds<LocatedRow>(db, FIND_BLOCKS_SQL, documentId, ids)).map(toLocated);
}

/**
 * Precise edits: read the blocks the operations name, work the edit out on them alone
 * (`simulateBlockEdits`, the same code the dry run shows), then write each step. Other blocks are
 * touched only by the position shifts behind an insert, delete or move, one statement each.
 */
async function editBody(tx: SqlExecutor, page: PageRecord, operations: BlockEditOperation[], before: number): Promise<AppliedCommand> {
  const located = await findBlocksIn(tx, page.id, blockIdsNamed(operations));
  const edit = simulateBlockEdits(located, before, operations);
  let count = before;
  const shift = (by: number, from: number, to?: number) =>
    to === undefined
      ? tx.run(`UPDATE blocks SET position = position + ? WHERE document_id = ? AND position >= ?`, [by, page.id, from])
      : tx.run(`UPDATE blocks SET position = position + ? WHERE document_id = ? AND position >= ? AND position <= ?`, [by, page.id, from, to]);
  for (const step of edit.steps) {
    switch (step.kind) {
      case "update":
        await tx.run(`UPDATE blocks SET type = ?, text = ?, attrs = ? WHERE document_id = ? AND id = ?`, [
          step.block.type,
          step.block.text,
          blockAttrs(step.block),
          page.id,
          step.block.id,
        ]);
        break;
      case "insert":
        if (step.index < count) await shift(step.blocks.length, step.index);
        await insertBlocks(tx, page.id, step.blocks, step.index);
        count += step.blocks.length;
        break;
      case "delete":
        await tx.run(`DELETE FROM blocks WHERE document_id = ? AND id = ?`, [page.id, step.id]);
        if (step.index < count - 1) await shift(-1, step.index + 1);
        count -= 1;
        break;
      case "move":
        if (step.to < step.from) await shift(1, step.to, step.from - 1);
        else await shift(-1, step.from + 1, step.to);
        await tx.run(`UPDATE blocks SET position = ? WHERE document_id = ? AND id = ?`, [step.to, page.id, step.id]);
        break;
    }
  }
  return {
    bumpsRevision: true,
    result: { insertedBlockIds: edit.insertedBlockIds },
    undo: { blockEdits: edit.undo },
    blockCount: edit.blockCount,
  };
}

async function upsertSummary(
  tx: SqlExecutor,
  page: PageRecord,
  summary: string,
  context: { commandId: string; actorId: string; now: string },
): Promise<AppliedCommand> {
  const existing = await tx.get<{ id: string }>(`SELECT id FROM nodes WHERE document_id = ? AND kind = 'summary'`, [
    page.id,
  ]);
  let nodeId = existing?.id;
  if (nodeId) {
    await tx.run(`UPDATE nodes SET content = ?, updated_at = ?, command_id = ? WHERE id = ?`, [
      summary,
      context.now,
      context.commandId,
      nodeId,
    ]);
  } else {
    nodeId = newId("node");
    await tx.run(
      `INSERT INTO nodes (id, workspace_id, document_id, kind, content, created_by, command_id, created_at, updated_at)
       VALUES (?, ?, ?, 'summary', ?, ?, ?, ?, ?)`,
      [nodeId, page.workspaceId, page.id, summary, context.actorId, context.commandId, context.now, context.now],
    );
  }
  const edge = await tx.get<{ id: string }>(
    `SELECT id FROM edges WHERE from_document_id = ? AND to_node_id = ? AND kind = 'reference'`,
    [page.id, nodeId],
  );
  const edgeId = edge?.id ?? newId("edge");
  if (!edge) await insertEdge(tx, edgeId, page, nodeId, context.now);
  return { bumpsRevision: false, result: { nodeId, edgeId, created: !existing }, undo: null };
}

async function insertEdge(tx: SqlExecutor, edgeId: string, page: PageRecord, nodeId: string, now: string) {
  await tx.run(
    `INSERT INTO edges (id, workspace_id, from_document_id, to_node_id, kind, created_at) VALUES (?, ?, ?, ?, 'reference', ?)`,
    [edgeId, page.workspaceId, page.id, nodeId, now],
  );
}

async function revertPage(tx: SqlExecutor, page: PageRecord, targetCommandId: string): Promise<AppliedCommand> {
  const target = await tx.get<CommandRow>(`SELECT * FROM commands WHERE id = ?`, [targetCommandId]);
  if (!target || target.document_id !== page.id) throw new CommandRejected("no such command on this page");
  const restored = await stateBefore(tx, target);
  const current = await readPageState(tx, page.id);
  if (!restored || !current) throw new CommandRejected("the page state before that command cannot be rebuilt");
  await tx.run(`UPDATE pages SET title = ?, options = ?, block_count = ? WHERE id = ?`, [
    restored.title,
    JSON.stringify(restored.options),
    restored.blocks.length,
    page.id,
  ]);
  await replaceBlocks(tx, page.id, restored.blocks);
  return { bumpsRevision: true, result: { targetCommandId }, undo: { state: current } };
}

/** Rebuild the page as it was before `target` by undoing, newest first, every command since. */
async function stateBefore(db: SqlExecutor, target: CommandRow): Promise<PageState | null> {
  const current = await readPageState(db, target.document_id!);
  if (!current) return null;
  const later = await db.all<{ undo: string | null }>(
    `SELECT undo FROM commands WHERE document_id = ? AND revision_after > ? AND revision_after > revision_before
     ORDER BY revision_after DESC`,
    [target.document_id, Number(target.revision_before)],
  );
  let state = current;
  for (const row of later) if (row.undo) state = applyUndo(state, JSON.parse(row.undo) as Undo);
  return state;
}
