import { type Block, canonicalBlock, type Capability, DEFAULT_PAGE_OPTIONS, type PageOptions } from "@mnote/contract";
import type {
  ArtifactEdge,
  ArtifactNode,
  AuditRecord,
  CallIdentity,
  CommandName,
  CommandRecord,
  PageRecord,
  ProposalRecord,
  AppliedPart,
  ChangeStateRecord,
  TokenRecord,
  WorkspaceRecord,
} from "./types";

/** Row shapes as the database returns them, and their mapping to kernel records. */
export interface PageRow {
  id: string;
  workspace_id: string;
  title: string;
  is_private: number;
  options: string;
  revision: number;
  block_count: number;
  created_at: string;
}
export const PAGE_COLUMNS = "id, workspace_id, title, is_private, options, revision, block_count, created_at";

export function toPage(row: PageRow): PageRecord {
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    title: row.title,
    isPrivate: Number(row.is_private) === 1,
    options: { ...DEFAULT_PAGE_OPTIONS, ...(JSON.parse(row.options) as Partial<PageOptions>) },
    revision: Number(row.revision),
    blockCount: Number(row.block_count),
    createdAt: String(row.created_at),
  };
}

export interface BlockRow {
  id: string;
  type: string;
  text: string;
  attrs: string;
}
export function toBlock(row: BlockRow): Block {
  // Most blocks (paragraphs, quotes, …) have no per-type fields: no JSON to parse for those.
  if (row.attrs === "{}") return { id: row.id, type: row.type, text: row.text } as Block;
  return { id: row.id, type: row.type, text: row.text, ...(JSON.parse(row.attrs) as object) } as Block;
}
/**
 * Per-type fields (level, checked, language) and formatting (marks, indent: decision 0026) live in `attrs`,
 * so adding a block type or a field needs no migration; a page stored before formatting reads as plain.
 */
export function blockAttrs(block: Block): string {
  const { id: _id, type: _type, text: _text, ...attrs } = canonicalBlock(block);
  return JSON.stringify(attrs);
}

export interface WorkspaceRow {
  id: string;
  name: string;
  approval_required: number;
  hold_artifacts: number;
}
export function toWorkspace(row: WorkspaceRow): WorkspaceRecord {
  return {
    id: row.id,
    name: row.name,
    approvalRequired: Number(row.approval_required) === 1,
    holdArtifacts: Number(row.hold_artifacts) === 1,
  };
}

export interface TokenRow {
  id: string;
  user_id: string;
  holder: "person" | "agent";
  scopes: string;
  label: string;
  expires_at: string | null;
  revoked_at: string | null;
  resource?: string | null;
}
export function toToken(row: TokenRow): TokenRecord {
  return {
    ...(row.resource ? { resource: row.resource } : {}),
    id: row.id,
    userId: row.user_id,
    holder: row.holder,
    scopes: JSON.parse(row.scopes) as Capability[],
    label: row.label,
    expiresAt: row.expires_at,
    revokedAt: row.revoked_at,
  };
}

interface IdentityColumns {
  tool_name: string;
  workspace_id: string | null;
  document_id: string | null;
  actor_id: string | null;
  token_id: string | null;
  holder: "person" | "agent" | null;
  session_id: string | null;
  run_id: string | null;
  tool_call_id: string | null;
  trace_id: string | null;
  asked_by?: string | null;
}
function toIdentity(row: IdentityColumns): CallIdentity {
  return {
    toolName: row.tool_name,
    workspaceId: row.workspace_id ?? "",
    documentId: row.document_id ?? "",
    actorId: row.actor_id ?? "",
    tokenId: row.token_id,
    holder: row.holder,
    sessionId: row.session_id,
    runId: row.run_id,
    toolCallId: row.tool_call_id,
    traceId: row.trace_id,
    askedBy: row.asked_by ?? null,
  };
}
export function identityValues(identity: CallIdentity) {
  return [
    identity.toolName,
    identity.workspaceId,
    identity.documentId,
    identity.actorId,
    identity.tokenId,
    identity.holder,
    identity.sessionId,
    identity.runId,
    identity.toolCallId,
    identity.traceId,
    identity.askedBy ?? null,
  ];
}
/** `?, ?, …` for a VALUES or IN list of `count` items. */
export const placeholders = (count: number) => Array.from({ length: count }, () => "?").join(", ");

export const IDENTITY_COLUMNS =
  "tool_name, workspace_id, document_id, actor_id, token_id, holder, session_id, run_id, tool_call_id, trace_id, asked_by";

export interface AuditRow extends IdentityColumns {
  id: number | string;
  at: string;
  effect: AuditRecord["effect"];
  outcome: AuditRecord["outcome"];
  error_code: AuditRecord["errorCode"];
  command_id: string | null;
  idempotency_key: string | null;
  payload_fingerprint: string | null;
  base_revision: number | null;
  detail: string | null;
  duration_ms: number | null;
}
export function toAudit(row: AuditRow): AuditRecord {
  return {
    id: Number(row.id),
    at: row.at,
    identity: toIdentity(row),
    effect: row.effect,
    outcome: row.outcome,
    errorCode: row.error_code ?? null,
    commandId: row.command_id,
    idempotencyKey: row.idempotency_key,
    payloadFingerprint: row.payload_fingerprint,
    baseRevision: row.base_revision === null ? null : Number(row.base_revision),
    detail: row.detail ? (JSON.parse(row.detail) as Record<string, unknown>) : null,
    durationMs: row.duration_ms === null ? null : Number(row.duration_ms),
  };
}

export interface CommandRow extends IdentityColumns {
  id: string;
  name: CommandName;
  payload_fingerprint: string;
  idempotency_key: string;
  revision_before: number;
  revision_after: number;
  undo: string | null;
  created_at: string;
}
export function toCommand(row: CommandRow): CommandRecord {
  return {
    id: row.id,
    name: row.name,
    identity: toIdentity(row),
    payloadFingerprint: row.payload_fingerprint,
    idempotencyKey: row.idempotency_key,
    revisionBefore: Number(row.revision_before),
    revisionAfter: Number(row.revision_after),
    createdAt: row.created_at,
  };
}

export interface NodeRow {
  id: string;
  workspace_id: string;
  document_id: string;
  kind: "summary" | "ai_note";
  content: string;
  created_by: string;
  command_id: string;
  created_at: string;
  updated_at: string;
}
export function toNode(row: NodeRow): ArtifactNode {
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    documentId: row.document_id,
    kind: row.kind,
    content: row.content,
    createdBy: row.created_by,
    commandId: row.command_id,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
export interface EdgeRow {
  id: string;
  workspace_id: string;
  from_document_id: string;
  to_node_id: string;
  kind: "reference";
  created_at: string;
}
export function toEdge(row: EdgeRow): ArtifactEdge {
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    fromDocumentId: row.from_document_id,
    toNodeId: row.to_node_id,
    kind: row.kind,
    createdAt: row.created_at,
  };
}

export interface ProposalRow extends IdentityColumns {
  audit_id: number | string;
  at: string;
  idempotency_key: string;
  payload_fingerprint: string;
  base_revision: number | null;
  held: number;
  status: ProposalRecord["status"];
  command_id: string | null;
  decided_at: string | null;
  summary: string | null;
  applied_part: string | null;
  decided_by: string | null;
  reason: string | null;
  edited: number | null;
  change_states?: string | null;
}
export function toProposal(row: ProposalRow): ProposalRecord {
  return {
    auditId: Number(row.audit_id),
    at: row.at,
    identity: toIdentity(row),
    idempotencyKey: row.idempotency_key,
    payloadFingerprint: row.payload_fingerprint,
    baseRevision: row.base_revision === null ? null : Number(row.base_revision),
    held: Number(row.held) === 1,
    status: row.status,
    commandId: row.command_id,
    decidedAt: row.decided_at,
    summary: row.summary ? (JSON.parse(row.summary) as Record<string, unknown>) : null,
    appliedPart: row.applied_part ? (JSON.parse(row.applied_part) as AppliedPart) : null,
    decidedBy: row.decided_by ?? null,
    reason: row.reason ?? null,
    edited: Number(row.edited ?? 0) === 1,
    changeStates: row.change_states ? (JSON.parse(row.change_states) as Record<number, ChangeStateRecord>) : {},
  };
}
