import { type Block, LIMITS, storable } from "@mnote/contract";
import { type AuditRecord, type CallIdentity, type DisplayNames, revertKeyPrefix } from "@mnote/kernel";
import { z } from "zod";
import { PageRefSchema, panelProcedure, requirePage } from "../../panel/panel-procedure";
import { loadNames, type Who, who } from "../../panel/people";
import { listProposals, proposalKeyOf, type ProposalState } from "../../panel/proposals";
import { revertToolSpec } from "../../panel/revert-tool";
import { mayDecide, revertRefusal } from "../../panel/rules";

const TraceFilterSchema = storable(z.string()).max(LIMITS.traceFieldLength).optional();
export const AuditListInput = PageRefSchema.extend({
  runId: TraceFilterSchema,
  traceId: TraceFilterSchema,
  /** One Hermes conversation asked from the panel (mnote_<documentId>_<traceId>): its calls, after a reload. */
  sessionId: TraceFilterSchema,
  limit: z.number().int().min(1).max(500).optional(),
});

/** A person's decision on a proposal, as its audit record names it: "Ada approved Hermes's proposal". */
export interface DecisionOnProposal {
  proposalId: number;
  /** Who made the proposal (null for records written before decisions named their proposer). */
  proposer: Who | null;
  /** Applied in part: how many of its changes were kept, of how many. */
  part: { kept: number; total: number } | null;
  /** Applied with the person's edits: each edited block as proposed and as applied (the write's actor edited). */
  edits: { blockId: string; proposed: Block; applied: Block }[] | null;
  /** A rejection: the reason the person gave, if any. */
  reason: string | null;
}

export interface AuditRow extends AuditRecord {
  /** Who made the call: a person's name, or an agent token's name and the person it acts for. */
  who: Who;
  /** Set on a person's decision on a proposal (an approved write, a partial apply, a rejection). */
  decision: DecisionOnProposal | null;
  /** An agent's own write, or a person's approval of an agent's proposal. */
  aiWrite: boolean;
  /** The signed-in person may take this write back with `panel.page.revert`. */
  revertable: boolean;
  /** A write: what it did, in words ("inserted 'Alpha line' after 'Rollout'"); null for records written before. */
  description: string | null;
  /**
   * A record that made a proposal (a dry run or a held write): where that proposal stands now — one final state per
   * entry, so the trail never says "held for approval" beside "rejected by Ada" for the same edit (issue 36). Null
   * for other records, and for proposals past the list's window.
   */
  proposal: { status: ProposalState; decidedBy: string | null; reason: string | null } | null;
}

const editKey = (toolName: string, key: string | null | undefined, fingerprint: string | null | undefined) =>
  JSON.stringify([toolName, key, fingerprint]);

type Proposer = Pick<CallIdentity, "actorId" | "holder" | "tokenId">;
const proposerOf = (record: AuditRecord) => (record.detail?.proposer as Proposer | undefined) ?? null;

function decisionOf(record: AuditRecord, names: DisplayNames): DecisionOnProposal | null {
  const proposalId = record.detail?.proposalId;
  // An agent's repeat of its held call names the proposal too: it is no person's decision (issue 36).
  if (typeof proposalId !== "number" || record.identity.holder === "agent") return null;
  const proposer = proposerOf(record);
  const part = record.detail?.part as DecisionOnProposal["part"] | undefined;
  const edits = record.detail?.edits as DecisionOnProposal["edits"] | undefined;
  const reason = record.detail?.reason;
  return {
    proposalId,
    proposer: proposer ? who(names, proposer) : null,
    part: part ?? null,
    edits: edits ?? null,
    reason: typeof reason === "string" ? reason : null,
  };
}

/** panel.audit.list — every call on this page, filterable by run or trace, with names and what the person may revert. */
export const auditList = panelProcedure.input(AuditListInput).query(async ({ ctx, input }): Promise<AuditRow[]> => {
  const { page, facts } = await requirePage(ctx, input);
  const records = await ctx.kernel.listAudit({
    documentId: page.id,
    runId: input.runId,
    traceId: input.traceId,
    sessionId: input.sessionId,
    limit: input.limit ?? 200,
  });
  // A record whose caller named this page id in another workspace belongs to nobody's page here.
  const onPage = records.filter((r) => r.identity.workspaceId === page.workspaceId);
  // Records written before approvals named their proposer: an approval carries the agent proposal's tool and
  // key (or a partial apply's key cut from it), found among the agent's records in this window.
  const agentEdits = new Set(
    onPage.flatMap((r) =>
      r.identity.holder === "agent" && r.idempotencyKey ? [`${r.identity.toolName} ${r.idempotencyKey}`] : [],
    ),
  );
  const approvesAgent = (record: AuditRecord) => {
    const proposer = proposerOf(record);
    if (proposer) return proposer.holder === "agent";
    return (
      !!record.idempotencyKey && agentEdits.has(`${record.identity.toolName} ${proposalKeyOf(record.idempotencyKey)}`)
    );
  };
  const mayRevert = mayDecide(facts, ctx.token, revertToolSpec.name);
  const names = await loadNames(ctx.kernel, [
    ...onPage.map((r) => r.identity),
    ...onPage.flatMap((r) => proposerOf(r) ?? []),
  ]);
  // Commands a revert applied since (in this window): keyed `revert_<commandId>_r<revision>`.
  const reverted = new Set(
    onPage.flatMap((r) =>
      r.identity.toolName === revertToolSpec.name && r.effect === "write" && r.outcome === "ok" && r.idempotencyKey
        ? [r.idempotencyKey]
        : [],
    ),
  );
  const wasReverted = (commandId: string | null | undefined) =>
    !!commandId && [...reverted].some((key) => key.startsWith(revertKeyPrefix(commandId)));
  // The page's proposals as its list shows them (repeats of one edit once): what each proposing record came to.
  const proposals = new Map(
    (await listProposals(ctx, page, facts)).map((p) => [
      editKey(p.toolName, p.idempotencyKey, p.payloadFingerprint),
      p,
    ]),
  );
  const proposalOf = (record: AuditRecord) => {
    if (record.outcome !== "proposal" && record.outcome !== "held_for_approval") return null;
    const found = proposals.get(editKey(record.identity.toolName, record.idempotencyKey, record.payloadFingerprint));
    return found ? { status: found.status, decidedBy: found.decidedBy?.actorName ?? null, reason: found.reason } : null;
  };
  return onPage.map((record) => {
    const aiWrite = record.effect === "write" && (record.identity.holder === "agent" || approvesAgent(record));
    return {
      ...record,
      who: who(names, record.identity),
      decision: decisionOf(record, names),
      description: typeof record.detail?.description === "string" ? record.detail.description : null,
      proposal: proposalOf(record),
      aiWrite,
      revertable:
        mayRevert &&
        record.effect === "write" &&
        revertRefusal({
          toolName: record.identity.toolName,
          outcome: record.outcome,
          commandId: record.commandId,
          aiWrite,
          reverted: wasReverted(record.commandId),
        }) === null,
    };
  });
});
