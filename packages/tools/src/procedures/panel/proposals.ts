import type { DiffSummaryOp, DryRunResult, ToolWarning } from "@mnote/contract";
import type { KernelAdapter, PageRecord, ProposalRecord } from "@mnote/kernel";
import { canonicalJson } from "../../fingerprint";

/** A partial apply is a new edit, keyed after the proposal it came from so the audit trail can tie them together. */
const PARTIAL_MARK = "~part~";
export function partialApplyKey(key: string, keep: number[]) {
  return `${key}${PARTIAL_MARK}${canonicalJson(keep.sort((a, b) => a - b))}`.slice(0, 200);
}
/** The key of the proposal an edit came from: itself, or the proposal a partial apply was cut from. */
export const proposalKeyOf = (key: string) => key.split(PARTIAL_MARK)[0]!;

/** What the panel's list shows of a proposal's preview: a few hundred bytes, whatever the edit's size. */
export type ProposalSummary = {
  commandName: string;
  plan: string[];
  diff: DiffSummaryOp[];
  /** How many changes the full preview lists (the panel fetches them with `panel.proposals.get`). */
  changeCount: number;
  warnings: ToolWarning[];
};

const SUMMARY_LINES = 20;
const SUMMARY_LINE_CHARS = 300;
const clip = (text: string) => (text.length > SUMMARY_LINE_CHARS ? `${text.slice(0, SUMMARY_LINE_CHARS - 1)}…` : text);

/** The summary stored with a proposal's index row (the kernel keeps it next to the status). */
export function proposalSummary(preview: DryRunResult): ProposalSummary {
  return {
    commandName: preview.commandName,
    plan: preview.plan.slice(0, SUMMARY_LINES).map(clip),
    diff: preview.diff.slice(0, SUMMARY_LINES),
    changeCount: preview.changes.length,
    warnings: preview.warnings.slice(0, SUMMARY_LINES).map((warning) => ({ ...warning, message: clip(warning.message) })),
  };
}

/** A dry run (or a held agent write) as the panel's list shows it. */
export interface ProposalListItem {
  id: number;
  toolName: string;
  at: string;
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
  status: ProposalRecord["status"];
  /** The command that applied it, when applied. */
  commandId: string | null;
  /** The page moved past the revision the diff was computed on. */
  stale: boolean;
}

/** One proposal in full, as `panel.proposals.get` answers it: the args and the whole preview. */
export interface Proposal extends ProposalListItem {
  args: Record<string, unknown>;
  preview: DryRunResult;
}

type PageAt = Pick<PageRecord, "id" | "workspaceId" | "revision">;

function listItem(record: ProposalRecord, page: PageAt): ProposalListItem {
  const { identity } = record;
  return {
    id: record.auditId,
    toolName: identity.toolName,
    at: record.at,
    actorId: identity.actorId,
    holder: identity.holder,
    sessionId: identity.sessionId,
    runId: identity.runId,
    toolCallId: identity.toolCallId,
    traceId: identity.traceId,
    idempotencyKey: record.idempotencyKey,
    payloadFingerprint: record.payloadFingerprint,
    baseRevision: record.baseRevision,
    summary: record.summary as ProposalSummary | null,
    held: record.held,
    status: record.status,
    commandId: record.commandId,
    stale: record.status !== "applied" && record.baseRevision !== page.revision,
  };
}

/**
 * The page's proposals from their own index (decision 0013), never from a window of the audit log:
 * every pending one, then the newest decided. Repeats of one edit (tool, key, payload) show once,
 * newest first. Summaries only; `findProposal` reads one proposal's full preview.
 */
export async function listProposals(kernel: KernelAdapter, page: PageAt): Promise<ProposalListItem[]> {
  const records = await kernel.listProposals({ workspaceId: page.workspaceId, documentId: page.id });
  const seen = new Set<string>();
  const items: ProposalListItem[] = [];
  for (const record of records) {
    const edit = JSON.stringify([record.identity.toolName, record.idempotencyKey, record.payloadFingerprint]);
    if (seen.has(edit)) continue;
    seen.add(edit);
    items.push(listItem(record, page));
  }
  return items;
}

/** One proposal of this page with its args and full preview, from the audit record the index points at. */
export async function findProposal(kernel: KernelAdapter, page: PageAt, id: number): Promise<Proposal | null> {
  const record = await kernel.getProposal(id);
  if (!record || record.identity.documentId !== page.id || record.identity.workspaceId !== page.workspaceId) return null;
  const audit = await kernel.getAudit(id);
  if (!audit?.detail) return null;
  const preview = audit.detail.preview as DryRunResult;
  return {
    ...listItem(record, page),
    summary: (record.summary as ProposalSummary | null) ?? proposalSummary(preview),
    args: audit.detail.args as Record<string, unknown>,
    preview,
    stale: record.status !== "applied" && preview.baseRevision !== page.revision,
  };
}
