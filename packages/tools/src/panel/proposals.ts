import type { Change, DryRunResult } from "@mnote/contract";
import {
  type AccessFacts,
  type CallIdentity,
  type DisplayNames,
  type PageRecord,
  type ProposalRecord,
  revertedCommandId,
  sha256Hex,
} from "@mnote/kernel";
import { canonicalJson } from "../fingerprint";
import type { PersonContext } from "./panel-procedure";
import { loadNames, type Who, who } from "./people";
import { type ProposalSummary, proposalSummary } from "../proposal-summary";
import { isAskSessionOf } from "./ask";
import { cutsByChange, mayDecide } from "./rules";
import { REVERT_TOOL_NAME } from "./revert-tool";
import { changeAnchor, type Placement } from "@mnote/diff";
import { describeChange, placementWords, proposalOnPage } from "../proposal-merge";
import type { ChangeChoice, ChangeCounts, ChangeState, ProposalChange } from "../procedures/panel/changes";

export type { ProposalSummary } from "../proposal-summary";

/**
 * A partial or edited apply is a new edit, keyed after the proposal it came from: the original key (cut so the
 * whole fits the contract's 200 characters), the kind of decision and a digest of what it kept or changed. So a
 * retried click replays, and another cut or other edits are another write.
 */
const DECISION_MARKS = { part: "~part~", edit: "~edit~", decide: "~decide~" } as const;
export function decisionKey(key: string, kind: keyof typeof DECISION_MARKS, payload: unknown) {
  const mark = DECISION_MARKS[kind];
  const digest = sha256Hex(canonicalJson(payload)).slice(0, 24);
  return `${key.slice(0, 200 - mark.length - digest.length)}${mark}${digest}`;
}
/** The key of the proposal an edit came from: itself, or the proposal a partial or edited apply came from (older records). */
export const proposalKeyOf = (key: string) => key.split(/~(?:part|edit|decide)~/)[0]!;

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
  /** The command that applied it, when applied (in full or in part); while pending, the newest step's write. */
  commandId: string | null;
  /**
   * How many of its changes stand where (decision 0030; replaces the whole-proposal `stale`). `conflict` is null in
   * the list (it needs the changes themselves) and counted by `panel.proposals.get`.
   */
  changeCounts: ChangeCounts;
  /** The signed-in person may approve or reject it (their page access and session scopes allow its tool). */
  decidable: boolean;
  /**
   * The person may decide its changes one by one (`panel.proposals.decide`, `applyPart`): a pending proposal with
   * more than one change.
   */
  partiallyApplicable: boolean;
  /**
   * The person may write their own version of blocks it inserts or changes (`decide` with `edit`, `applyEdited`):
   * a pending proposal of a tool that changes blocks.
   */
  editable: boolean;
  /** Proposed in a conversation started from the panel's Ask Hermes box: a rejection's reason can be told to it. */
  fromAsk: boolean;
  /**
   * A revert (`panel.page.revert`): which edit it takes back — who made it and what it did, in words — so the card says
   * "Take back Ben's agent's edit: inserted 'Alpha line'" rather than a tool's name (issue 36). Null for other tools,
   * and when the edit's record is gone (past retention).
   */
  reverts: RevertedEdit | null;
}

/** The edit a revert proposal takes back, as a person reads it. */
export interface RevertedEdit {
  /** Who made the edit: the agent whose proposal was approved, or whoever wrote it. */
  by: Who;
  /** What it did ("inserted 'Alpha line' after 'Rollout'"); null for writes recorded before descriptions. */
  description: string | null;
  /** ISO time of the write. */
  at: string;
}

/** One proposal in full, as `panel.proposals.get` answers it: the args and the whole preview. */
export interface Proposal extends ProposalListItem {
  args: Record<string, unknown>;
  preview: DryRunResult;
  /** The indices (into `preview.changes`) of the changes decided left out (rejected) so far. */
  leftOut: number[];
  /** By change: where an insert or move goes (decision 0030); null for other changes and for older records. */
  placements: (Placement | null)[];
  /** Every change with its state against the page now, its decision, and what the person may do with it. */
  changes: ProposalChange[];
}

type PageAt = Pick<PageRecord, "id" | "workspaceId" | "revision" | "title" | "options">;

function listItem(
  ctx: PersonContext,
  facts: AccessFacts,
  names: DisplayNames,
  record: ProposalRecord,
  page: PageAt,
  reverts: RevertedEdit | null = null,
): ProposalListItem {
  const { identity } = record;
  const summary = record.summary as ProposalSummary | null;
  const status: ProposalState = record.edited
    ? "applied_with_edits"
    : record.appliedPart
      ? "applied_in_part"
      : record.status;
  const decidable = record.status === "pending" && mayDecide(facts, ctx.token, identity.toolName);
  const total = summary?.changeCount ?? 0;
  const decided = Object.values(record.changeStates);
  const counts: ChangeCounts = {
    pending: record.status === "pending" ? Math.max(total - decided.length, 0) : 0,
    conflict: null,
    applied: decided.filter((d) => d.state !== "rejected").length,
    rejected: decided.filter((d) => d.state === "rejected").length,
  };
  if (record.status !== "pending" && decided.length === 0) {
    // Decided whole (before decision 0030, or Apply all / Reject all in one step).
    if (record.status === "rejected") counts.rejected = total;
    else {
      counts.applied = record.appliedPart ? record.appliedPart.kept.length : total;
      counts.rejected = total - counts.applied;
    }
  }
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
    changeCounts: counts,
    decidable,
    partiallyApplicable: decidable && total > 1,
    editable: decidable && cutsByChange(identity.toolName),
    fromAsk: identity.sessionId !== null && isAskSessionOf(identity.sessionId, page.id),
    reverts,
  };
}

type Proposer = Pick<CallIdentity, "actorId" | "holder" | "tokenId">;

/**
 * The edits these proposals revert, by proposal id: one read of each reverted write's audit record (a page has a
 * few reverts, not many). Its proposer (an approved agent edit names one) made the edit; else its caller did.
 */
async function revertedEdits(ctx: PersonContext, records: readonly ProposalRecord[]) {
  const found = new Map<number, { by: Proposer; description: string | null; at: string }>();
  for (const record of records) {
    const commandId = record.identity.toolName === REVERT_TOOL_NAME ? revertedCommandId(record.idempotencyKey) : null;
    if (!commandId) continue;
    const { write } = await ctx.kernel.getRevertFacts(commandId);
    if (!write) continue;
    const description = write.detail?.description;
    found.set(record.auditId, {
      by: (write.detail?.proposer as Proposer | undefined) ?? write.identity,
      description: typeof description === "string" ? description : null,
      at: write.at,
    });
  }
  return found;
}

const revertedEdit = (
  names: DisplayNames,
  edit: { by: Proposer; description: string | null; at: string } | undefined,
) => (edit ? { by: who(names, edit.by), description: edit.description, at: edit.at } : null);

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
  const reverted = await revertedEdits(ctx, unique);
  const names = await loadNames(ctx.kernel, [...unique.flatMap(namedIn), ...[...reverted.values()].map((e) => e.by)]);
  return unique.map((record) =>
    listItem(ctx, facts, names, record, page, revertedEdit(names, reverted.get(record.auditId))),
  );
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
  const reverted = await revertedEdits(ctx, [record]);
  const names = await loadNames(ctx.kernel, [...namedIn(record), ...[...reverted.values()].map((e) => e.by)]);
  const withSummary = { ...record, summary: record.summary ?? proposalSummary(preview) };
  const item = listItem(ctx, facts, names, withSummary, page, revertedEdit(names, reverted.get(record.auditId)));
  const placements = (audit.detail.placements as (Placement | null)[] | undefined) ?? preview.changes.map(() => null);
  const changes = await proposalChanges(ctx, page, record, item, preview, placements, names);
  const leftOut = record.appliedPart
    ? preview.changes.flatMap((_change, i) => (record.appliedPart!.kept.includes(i) ? [] : [i]))
    : changes.flatMap((change) => (change.state === "rejected" ? [change.index] : []));
  return {
    ...item,
    changeCounts: {
      ...item.changeCounts,
      pending: changes.filter((c) => c.state === "pending").length,
      conflict: changes.filter((c) => c.state === "conflict").length,
    },
    args: audit.detail.args as Record<string, unknown>,
    preview,
    leftOut,
    placements,
    changes,
  };
}

/**
 * Each change of a proposal: a decided one as decided; an undecided one of a pending proposal merged with the page as
 * it is now (current, or a conflict with the page's version); what the person may do with it.
 */
async function proposalChanges(
  ctx: PersonContext,
  page: PageAt,
  record: ProposalRecord,
  item: ProposalListItem,
  preview: DryRunResult,
  placements: (Placement | null)[],
  names: DisplayNames,
): Promise<ProposalChange[]> {
  const pending = record.status === "pending";
  const onPage = pending ? await proposalOnPage(ctx.kernel, page, { preview, placements }) : null;
  const deciders = new Set(Object.values(record.changeStates).map((d) => d.by));
  const deciderNames = deciders.size ? await loadNames(ctx.kernel, [...deciders].map(personRef)) : names;
  // A placement names a block on the page, or one the proposal inserts: both are quoted where they are known.
  const proposedBlocks = new Map(preview.changes.flatMap((c) => (blockOf(c) ? [[blockOf(c)!.id, blockOf(c)!]] : [])));
  const near = (id: string) => onPage?.page.blocks.get(id) ?? proposedBlocks.get(id);
  return preview.changes.map((change, index): ProposalChange => {
    const stored = record.changeStates[index];
    const merged = onPage?.merged[index];
    const state: ChangeState = stored
      ? stored.state
      : !pending
        ? wholeState(record, index)
        : merged?.state === "conflict"
          ? "conflict"
          : "pending";
    return {
      index,
      anchor: changeAnchor(change),
      state,
      proposed: change,
      conflict: !stored && merged?.state === "conflict" ? { reason: merged.reason, current: merged.current } : null,
      decision: stored
        ? {
            state: stored.state,
            by: { actorId: stored.by, actorName: deciderNames.users[stored.by] ?? null },
            at: stored.at,
            commandId: stored.commandId,
            reason: stored.reason ?? null,
            final: stored.final ?? null,
          }
        : null,
      choices: !stored && item.decidable ? choicesFor(change, merged?.state === "conflict" ? merged : null) : [],
      description: describeChange(change, placements[index], near),
      where: change.kind === "insert" || change.kind === "move" ? placementWords(placements[index], near) : "",
    };
  });
}

const personRef = (actorId: string) => ({ actorId, holder: "person" as const, tokenId: null });

function blockOf(change: Change) {
  switch (change.kind) {
    case "insert":
    case "delete":
    case "move":
      return change.block;
    case "update":
      return change.after;
    default:
      return undefined;
  }
}

/** A change of a proposal decided whole (before decision 0030, or in one step). */
function wholeState(record: ProposalRecord, index: number): ChangeState {
  if (record.status === "rejected") return "rejected";
  if (record.appliedPart && !record.appliedPart.kept.includes(index)) return "rejected";
  return record.edited ? "applied_with_edits" : "applied";
}

/** What a person may do with one undecided change (the server's rule; the panel shows it). */
export function choicesFor(change: Change, conflict: { reason: string; current: unknown } | null): ChangeChoice[] {
  const editable = change.kind === "insert" || change.kind === "update";
  if (!conflict) return editable ? ["accept", "reject", "edit"] : ["accept", "reject"];
  const gone = conflict.reason === "block_deleted";
  const choices: ChangeChoice[] = ["keep_mine"];
  if (!(gone && (change.kind === "update" || change.kind === "move"))) choices.push("take_agents");
  if (editable && !(gone && change.kind === "update")) choices.push("edit");
  return choices;
}
