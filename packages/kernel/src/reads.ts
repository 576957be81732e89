/**
 * The kernel's reads: everything a call looks up before or instead of writing. Each function runs on
 * the driver or on an open transaction, so the write transaction reads with the same code.
 */
import { statesAround } from "./page-state";
import type { LocatedBlock } from "./block-edits";
import {
  type AuditRow,
  type BlockRow,
  type CommandRow,
  type EdgeRow,
  type NodeRow,
  PAGE_COLUMNS,
  type PageRow,
  placeholders,
  type ProposalRow,
  type TokenRow,
  toAudit,
  toBlock,
  toCommand,
  toEdge,
  toNode,
  toPage,
  toProposal,
  toToken,
  toWorkspace,
  type WorkspaceRow,
} from "./rows";
import type { SqlExecutor, SqlValue } from "./sql/driver";
import type {
  AccessFacts,
  AuditQuery,
  BlockWindowQuery,
  CallFacts,
  CallFactsQuery,
  EditDecision,
  EditQuery,
  IdempotencyRecord,
  ProposalQuery,
} from "./types";

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
const ACCESS_COLUMNS = `w.id, w.name, w.approval_required, w.hold_artifacts, m.role,
  p.id AS page_id, p.workspace_id AS page_workspace_id, p.title AS page_title, p.is_private AS page_is_private,
  p.options AS page_options, p.revision AS page_revision, p.block_count AS page_block_count,
  p.created_at AS page_created_at, g.access`;

/** Joins from workspace `w` to the user's membership, the page (`?`) and the user's grant; `user` is SQL for the user id. */
function accessJoins(user: string) {
  return `LEFT JOIN members m ON m.workspace_id = w.id AND m.user_id = ${user}
       LEFT JOIN pages p ON p.id = ? AND p.workspace_id = w.id AND p.removed_at IS NULL
       LEFT JOIN page_grants g ON g.document_id = p.id AND g.user_id = ${user}`;
}

// Statements on every tool call are built once: a template built per call is a new string the
// driver's statement cache has to hash in full before it finds the prepared statement.
const ACCESS_FACTS_SQL = `SELECT ${ACCESS_COLUMNS}
  FROM workspaces w ${accessJoins("?")}
  WHERE w.id = ?`;

const CALL_FACTS_SQL = `SELECT t.id AS token_id, t.user_id, t.holder, t.scopes, t.label, t.expires_at, t.revoked_at, t.resource, ${ACCESS_COLUMNS},
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
          created_at: row.page_created_at!,
        });
  return { workspace: toWorkspace(row), role: row.role ?? null, page, grant: page ? (row.access ?? null) : null };
}

/** The IN-list sizes `findBlockIds` prepares statements for. */
const ID_LOOKUP_SLOTS = [1, 8, 64] as const;
const FIND_BLOCK_IDS_SQL = Object.fromEntries(
  ID_LOOKUP_SLOTS.map((slots) => [
    slots,
    `SELECT id FROM blocks WHERE document_id = ? AND id IN (${placeholders(slots)})`,
  ]),
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

export async function findTokenByHash(db: SqlExecutor, tokenHash: string) {
  const row = await db.get<TokenRow>(
    `SELECT id, user_id, holder, scopes, label, expires_at, revoked_at, resource FROM tokens WHERE token_hash = ?`,
    [tokenHash],
  );
  return row ? toToken(row) : null;
}

export async function getAccessFacts(
  db: SqlExecutor,
  input: { workspaceId: string; documentId: string | null; userId: string },
): Promise<AccessFacts> {
  // One statement instead of four (workspace, membership, page, grant): every statement saved is a
  // round of lock, bind and row building saved on every tool call.
  const row = await db.get<AccessRow>(ACCESS_FACTS_SQL, [
    input.userId,
    input.documentId,
    input.userId,
    input.workspaceId,
  ]);
  return toAccessFacts(row);
}

export async function getCallFacts(db: SqlExecutor, input: CallFactsQuery): Promise<CallFacts> {
  // The token, the caller's access and the key's stored result in one read: the checks in front of a
  // tool call decide on nothing else, and a write's rate is bounded by how many statements it runs.
  // A snapshot for the checks' fast path only; the write transaction checks the key and revision again.
  const row = await db.get<TokenRow & AccessRow & IdempotencyColumns>(CALL_FACTS_SQL, [
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

export async function getPage(db: SqlExecutor, documentId: string) {
  const row = await db.get<PageRow>(`SELECT ${PAGE_COLUMNS} FROM pages WHERE id = ? AND removed_at IS NULL`, [
    documentId,
  ]);
  return row ? toPage(row) : null;
}

export async function findBlockIds(db: SqlExecutor, documentId: string, ids: readonly string[]) {
  // Point lookups on the primary key (document_id, id): an append costs the same on a page of
  // ten blocks or ten thousand.
  const rows = await lookupByIds<{ id: string }>(db, FIND_BLOCK_IDS_SQL, documentId, ids);
  return rows.map((row) => row.id);
}

export async function findBlocks(db: SqlExecutor, documentId: string, ids: readonly string[]) {
  return (await lookupByIds<LocatedRow>(db, FIND_BLOCKS_SQL, documentId, ids)).map(toLocated);
}

export async function getBlockWindow(db: SqlExecutor, documentId: string, query: BlockWindowQuery) {
  const only = query.only;
  const rows = !only
    ? await db.all<LocatedRow>(WINDOW_SQL.blocks, [documentId, query.from, query.limit])
    : only.kind === "headings"
      ? await db.all<LocatedRow>(WINDOW_SQL.headings, [documentId, query.from, query.limit])
      : await db.all<LocatedRow>(WINDOW_SQL.search, [documentId, query.from, likePattern(only.text), query.limit]);
  return rows.map(toLocated);
}

export async function getSummary(db: SqlExecutor, documentId: string) {
  const row = await db.get<NodeRow>(`SELECT * FROM nodes WHERE document_id = ? AND kind = 'summary'`, [documentId]);
  return row ? toNode(row) : null;
}

export async function getPageStateBefore(db: SqlExecutor, commandId: string) {
  const command = await db.get<CommandRow>(`SELECT * FROM commands WHERE id = ?`, [commandId]);
  if (!command) return null;
  const state = (await statesAround(db, command))?.before;
  return state ? { documentId: command.document_id!, revision: Number(command.revision_before), state } : null;
}

/** The page just before and just after a command: what a revert of exactly that command takes back. */
export async function getCommandStates(db: SqlExecutor, commandId: string) {
  const command = await db.get<CommandRow>(`SELECT * FROM commands WHERE id = ?`, [commandId]);
  if (!command) return null;
  const states = await statesAround(db, command);
  return states
    ? {
        documentId: command.document_id!,
        revisionBefore: Number(command.revision_before),
        revisionAfter: Number(command.revision_after),
        ...states,
      }
    : null;
}

export async function listProposals(db: SqlExecutor, query: ProposalQuery) {
  // Two walks of the (document_id, status, audit_id) index: every pending proposal, then the newest decided.
  const pending = await db.all<ProposalRow>(
    `SELECT * FROM proposals WHERE document_id = ? AND status = 'pending' AND workspace_id = ?
     ORDER BY audit_id DESC LIMIT ${MAX_PENDING_PROPOSALS}`,
    [query.documentId, query.workspaceId],
  );
  const decidedLimit = Math.min(Math.max(query.decidedLimit ?? 50, 0), 500);
  const decided = decidedLimit
    ? await db.all<ProposalRow>(
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

/** A workspace's pending proposals of one tool, newest first (the panel's proposed new pages, decision 0046). */
export async function listPendingProposalsOf(db: SqlExecutor, query: { workspaceId: string; toolName: string }) {
  const rows = await db.all<ProposalRow>(
    `SELECT * FROM proposals WHERE workspace_id = ? AND tool_name = ? AND status = 'pending'
     ORDER BY audit_id DESC LIMIT ${MAX_PENDING_PROPOSALS}`,
    [query.workspaceId, query.toolName],
  );
  return rows.map(toProposal);
}

export async function getProposal(db: SqlExecutor, auditId: number) {
  const row = await db.get<ProposalRow>(`SELECT * FROM proposals WHERE audit_id = ?`, [auditId]);
  return row ? toProposal(row) : null;
}

/**
 * The newest held or decided proposal of an edit by its proposer (the `proposals_by_edit` index), and when it
 * was applied the command's stored result; past the key's retention, the command's name and revision.
 */
export async function getEditDecision(db: SqlExecutor, query: EditQuery): Promise<EditDecision | null> {
  // The key names one intended call (decision 0030): the proposal of this payload first, else the newest held
  // proposal under the key with another payload, which makes the call an idempotency conflict.
  const row = await db.get<ProposalRow>(
    `SELECT * FROM proposals WHERE document_id = ? AND tool_name = ? AND idempotency_key = ? AND actor_id = ?
       AND (held = 1 OR (status <> 'pending' AND payload_fingerprint = ?))
     ORDER BY CASE WHEN payload_fingerprint = ? THEN 0 ELSE 1 END, audit_id DESC LIMIT 1`,
    [query.documentId, query.toolName, query.key, query.actorId, query.fingerprint, query.fingerprint],
  );
  if (!row) return null;
  const proposal = toProposal(row);
  if (proposal.payloadFingerprint !== query.fingerprint) return { proposal, otherPayload: true, result: null };
  if (proposal.status !== "applied" || !proposal.commandId) return { proposal, otherPayload: false, result: null };
  const applied = await db.get<{ name: string; revision_after: number | string; result: string | null }>(
    `SELECT c.name, c.revision_after, i.result FROM commands c
     LEFT JOIN idempotency i ON i.workspace_id = c.workspace_id AND i.actor_id = c.actor_id
       AND i.tool_name = c.tool_name AND i.key = c.idempotency_key AND i.command_id = c.id
     WHERE c.id = ?`,
    [proposal.commandId],
  );
  if (!applied) return { proposal, otherPayload: false, result: null };
  const result = applied.result
    ? (JSON.parse(applied.result) as Record<string, unknown>)
    : { commandName: applied.name, revision: Number(applied.revision_after) };
  return { proposal, otherPayload: false, result };
}

export async function listAudit(db: SqlExecutor, query: AuditQuery) {
  const where: string[] = [];
  const params: SqlValue[] = [];
  const filters: Array<[keyof AuditQuery, string]> = [
    ["documentId", "document_id = ?"],
    ["workspaceId", "workspace_id = ?"],
    ["runId", "run_id = ?"],
    ["traceId", "trace_id = ?"],
    ["sessionId", "session_id = ?"],
    ["afterId", "id > ?"],
    ["toolName", "tool_name = ?"],
  ];
  for (const [field, clause] of filters) {
    const value = query[field];
    if (value !== undefined) {
      where.push(clause);
      params.push(value);
    }
  }
  const limit = Math.min(Math.max(query.limit ?? 200, 1), 1000);
  const rows = await db.all<AuditRow>(
    `SELECT * FROM audit_log ${where.length ? `WHERE ${where.join(" AND ")}` : ""} ORDER BY id DESC LIMIT ${limit}`,
    params,
  );
  return rows.map(toAudit);
}

export async function getAudit(db: SqlExecutor, id: number) {
  const row = await db.get<AuditRow>(`SELECT * FROM audit_log WHERE id = ?`, [id]);
  return row ? toAudit(row) : null;
}

/** The key prefix the panel's revert of `commandId` is keyed with (panel.page.revert: `revert_<id>_r<revision>`). */
export const revertKeyPrefix = (commandId: string) => `revert_${commandId}_r`;

/** The command a revert's key names (`revert_<id>_r<revision>`), or null for any other key. */
export function revertedCommandId(key: string): string | null {
  const match = /^revert_(.+)_r\d+$/.exec(key);
  return match ? match[1]! : null;
}

export async function getRevertFacts(db: SqlExecutor, commandId: string) {
  const row = await db.get<AuditRow>(
    `SELECT * FROM audit_log WHERE command_id = ? AND effect = 'write' AND outcome = 'ok' ORDER BY id LIMIT 1`,
    [commandId],
  );
  const prefix = revertKeyPrefix(commandId);
  const revert = await db.get<{ id: string }>(
    `SELECT id FROM commands WHERE document_id = ? AND name = 'page.revert' AND substr(idempotency_key, 1, ?) = ? LIMIT 1`,
    [row?.document_id ?? "", prefix.length, prefix],
  );
  return { write: row ? toAudit(row) : null, reverted: revert !== undefined && revert !== null };
}

export async function getCommand(db: SqlExecutor, commandId: string) {
  const row = await db.get<CommandRow>(`SELECT * FROM commands WHERE id = ?`, [commandId]);
  return row ? toCommand(row) : null;
}

export async function listArtifacts(db: SqlExecutor, documentId: string) {
  // Creation order. Two artifacts made in the same millisecond are ordered by the audit record of the
  // command that wrote them (audit ids only grow), not by their random ids.
  const byCommand = (node: string) => `(SELECT MIN(a.id) FROM audit_log a WHERE a.command_id = ${node}.command_id)`;
  const nodes = await db.all<NodeRow>(
    `SELECT n.* FROM nodes n WHERE n.document_id = ? ORDER BY n.created_at, ${byCommand("n")}, n.id`,
    [documentId],
  );
  const edges = await db.all<EdgeRow>(
    `SELECT e.* FROM edges e JOIN nodes n ON n.id = e.to_node_id
     WHERE e.from_document_id = ? ORDER BY e.created_at, ${byCommand("n")}, e.id`,
    [documentId],
  );
  return { nodes: nodes.map(toNode), edges: edges.map(toEdge) };
}
