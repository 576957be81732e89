import type { DryRunResult } from "@mnote/contract";
import { type AccessFacts, type DisplayNames, type PageRecord, type ProposalRecord, sha256Hex } from "@mnote/kernel";
import { canonicalJson } from "../../fingerprint";
import type { PersonContext } from "./panel-procedure";
import { loadNames, type Who, who } from "./people";
import { type ProposalSummary, proposalSummary } from "../../proposal-summary";
import { isAskSessionOf } from "./ask";
import { cutsByChange, mayDecide } from "./rules";

export type { ProposalSummary } from "../../proposal-summary";

/**
 * A partial or edited apply is a new edit, keyed after the proposal it came from: the original key (cut so the
 * whole fits the contract's 200 characters), the kind of decision and a digest of what it kept or changed. So a
 * retried click replays, and another cut or other edits are another write.
 */
const DECISION_MARKS = { part: "~part~", edit: "~edit~" } as const;
export function decisionKey(key: string, kind: keyof typeof DECISION_MARKS, payload: unknown) {
  const mark = DECISION_MARKS[kind];
  const digest = sha256Hex(canonicalJson(payload)).slice(0, 24);
  return `${key.slice(0, 200 - mark.length - digest.length)}${mark}${digest}`;
}
/** The key of the proposal an edit came from: itself, or the proposal a partial or edited apply came from (older records). */
export const proposalKeyOf = (key: string) => key.split(/~(?:part|edit)~/)[0]!;

/**
 * Where a proposal stands, as a person reads it. `applied_in_part`: a person applied some of its changes
 * in one step (`panel.proposals.applyPart`); `part` says how many of how many. `applied_with_edits`: a person
 * changed proposed blocks before applying (`panel.proposals.applyEdited`; `part` is set when they also cut it).
 */
export type ProposalState = "pending" | "applied" | "applied_in_part" | "applied_with_edits" | "rejected";

/** A dry run (or a held agent write) as the panel's list shows it. */
export interface ProposalListItem {
  id: number;
  toolName: string;
  /** ISO time the proposal was recorded. */
  at: string;
  /** Who proposed it: the agent token's name and the person it acts for, with the raw ids. */
  who: Who;
  /** Raw ids, shown on demand. */
  actorId: string;
  holder: "person" | "agent" | null;
  sessionId: string | null;
  runId: string | null;
  toolCallId: string | null;
  traceId: string | null;
  idempotencyKey: string;
  payloadFingerprint: string;
  /** The revision the diff was computed on. */
  baseRevision: number | null;
  /** Null only for proposals recorded before the index kept summaries: open the proposal for its changes. */
  summary: ProposalSummary | null;
  /** The agent asked for a real write and the approval policy held it. */
  held: boolean;
  status: ProposalState;
  /** Applied in part: how many of its changes were kept, of how many. */
  part: { kept: number; total: number } | null;
  /** ISO time of the decision, once decided. */
  decidedAt: string | null;
  /** Who applied or rejected it, by name ("applied with Ada's edits", "rejected by Ben"). */
  decidedBy: { actorId: string; actorName: string | null } | null;
  /** Rejected: the reason the person gave, if any (the agent's retry reads it too). */
  reason: string | null;
  /** The command that applied it, when applied (in full or in part). */
  commandId: string | null;
  /** The page moved past the revision the diff was computed on. */
  stale: boolean;
  /** The signed-in person may approve or reject it (their page access and session scopes allow its tool). */
  decidable: boolean;
  /**
   * The person may keep some of its changes and apply them in one step (`panel.proposals.applyPart`): a pending,
   * current proposal of a tool whose changes the server can cut, with more than one change.
   */
  partiallyApplicable: boolean;
  /**
   * The person may change the blocks it inserts or changes before applying it (`panel.proposals.applyEdited`):
   * a pending, current proposal of a tool whose changes the server can re-plan.
   */
  editable: boolean;
  /** Proposed in a conversation started from the panel's Ask Hermes box: a rejection's reason can be told to it. */
  fromAsk: boolean;
}

/** One proposal in full, as `panel.proposals.get` answers it: the args and the whole preview. */
export interface Proposal extends ProposalListItem {
  args: Record<string, unknown>;
  preview: DryRunResult;
  /** Applied in part: the indices (into `preview.changes`) of the changes left out. Empty otherwise. */
  leftOut: number[];
}

type PageAt = Pick<PageRecord, "id" | "workspaceId" | "revision">;

function listItem(
  ctx: PersonContext,
  facts: AccessFacts,
  names: DisplayNames,
  record: ProposalRecord,
  page: PageAt,
  baseRevision = record.baseRevision,
): ProposalListItem {
  const { identity } = record;
  const summary = record.summary as ProposalSummary | null;
  const status: ProposalState = record.edited
    ? "applied_with_edits"
    : record.appliedPart
      ? "applied_in_part"
      : record.status;
  const stale = record.status !== "applied" && baseRevision !== page.revision;
  const decidable = record.status === "pending" && mayDecide(facts, ctx.token, identity.toolName);
  return {
    id: record.auditId,
    toolName: identity.toolName,
    at: record.at,
    who: who(names, identity),
    actorId: identity.actorId,
    holder: identity.holder,
    sessionId: identity.sessionId,
    runId: identity.runId,
    toolCallId: identity.toolCallId,
    traceId: identity.traceId,
    idempotencyKey: record.idempotencyKey,
    payloadFingerprint: record.payloadFingerprint,
    baseRevision: record.baseRevision,
    summary,
    held: record.held,
    status,
    part: record.appliedPart ? { kept: record.appliedPart.kept.length, total: record.appliedPart.total } : null,
    decidedAt: record.decidedAt,
    decidedBy: record.decidedBy
      ? { actorId: record.decidedBy, actorName: names.users[record.decidedBy] ?? null }
      : null,
    reason: record.reason,
    commandId: record.commandId,
    stale,
    decidable,
    partiallyApplicable: decidable && !stale && cutsByChange(identity.toolName) && (summary?.changeCount ?? 0) > 1,
    editable: decidable && !stale && cutsByChange(identity.toolName),
    fromAsk: identity.sessionId !== null && isAskSessionOf(identity.sessionId, page.id),
  };
}

/** The people a proposal's row names: who proposed it, and who decided. */
const namedIn = (record: ProposalRecord) => [
  record.identity,
  ...(record.decidedBy ? [{ actorId: record.decidedBy, holder: "person" as const, tokenId: null }] : []),
];

/**
 * The page's proposals from their own index (decision 0013), never from a window of the audit log:
 * every pending one, then the newest decided. Repeats of one edit (tool, key, payload) show once,
 * newest first. Summaries only; `findProposal` reads one proposal's full preview.
 */
export async function listProposals(ctx: PersonContext, page: PageAt, facts: AccessFacts): Promise<ProposalListItem[]> {
  const records = await ctx.kernel.listProposals({ workspaceId: page.workspaceId, documentId: page.id });
  const seen = new Set<string>();
  const unique: ProposalRecord[] = [];
  for (const record of records) {
    const edit = JSON.stringify([record.identity.toolName, record.idempotencyKey, record.payloadFingerprint]);
    if (seen.has(edit)) continue;
    seen.add(edit);
    unique.push(record);
  }
  const names = await loadNames(ctx.kernel, unique.flatMap(namedIn));
  return unique.map((record) => listItem(ctx, facts, names, record, page));
}

/** One proposal of this page with its args and full preview, from the audit record the index points at. */
export async function findProposal(
  ctx: PersonContext,
  page: PageAt,
  facts: AccessFacts,
  id: number,
): Promise<Proposal | null> {
  const record = await ctx.kernel.getProposal(id);
  if (!record || record.identity.documentId !== page.id || record.identity.workspaceId !== page.workspaceId)
    return null;
  const audit = await ctx.kernel.getAudit(id);
  if (!audit?.detail) return null;
  const preview = audit.detail.preview as DryRunResult;
  const names = await loadNames(ctx.kernel, namedIn(record));
  const withSummary = { ...record, summary: record.summary ?? proposalSummary(preview) };
  const kept = new Set(record.appliedPart?.kept ?? preview.changes.map((_change, i) => i));
  return {
    ...listItem(ctx, facts, names, withSummary, page, preview.baseRevision),
    args: audit.detail.args as Record<string, unknown>,
    preview,
    leftOut: preview.changes.flatMap((_change, i) => (kept.has(i) ? [] : [i])),
  };
}
