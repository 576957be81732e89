import type { DryRunResult } from "@mnote/contract";
import type { AuditRecord, KernelAdapter } from "@mnote/kernel";

/** A dry run recorded in the audit log, as the panel shows it. */
export interface Proposal {
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
  args: Record<string, unknown>;
  preview: DryRunResult;
  /** The agent asked for a real write and the approval policy held it. */
  held: boolean;
  status: "pending" | "applied" | "rejected";
  /** The command that applied it, when applied. */
  commandId: string | null;
  /** The page moved past the revision the diff was computed on. */
  stale: boolean;
}

const sameEdit = (a: AuditRecord, b: AuditRecord) =>
  a.identity.toolName === b.identity.toolName &&
  a.idempotencyKey === b.idempotencyKey &&
  a.payloadFingerprint === b.payloadFingerprint;

/**
 * Proposals are derived from the audit log, not stored twice: a dry run (or a held
 * agent write) is pending until a write with the same tool, key and payload lands,
 * or a person rejects it. Repeats of one edit show once, newest first.
 */
export async function listProposals(kernel: KernelAdapter, documentId: string, revision: number): Promise<Proposal[]> {
  const records = await kernel.listAudit({ documentId, limit: 1000 });
  const proposals: Proposal[] = [];
  for (const record of records) {
    if (record.outcome !== "proposal" && record.outcome !== "held_for_approval") continue;
    if (!record.idempotencyKey || !record.payloadFingerprint || !record.detail) continue;
    if (proposals.some((p) => p.toolName === record.identity.toolName && p.idempotencyKey === record.idempotencyKey && p.payloadFingerprint === record.payloadFingerprint)) continue;
    const write = records.find((r) => r.effect === "write" && r.commandId && sameEdit(r, record));
    const rejected = records.some((r) => r.outcome === "rejected" && sameEdit(r, record) && r.id > record.id);
    const preview = record.detail.preview as DryRunResult;
    proposals.push({
      id: record.id,
      toolName: record.identity.toolName,
      at: record.at,
      actorId: record.identity.actorId,
      holder: record.identity.holder,
      sessionId: record.identity.sessionId,
      runId: record.identity.runId,
      toolCallId: record.identity.toolCallId,
      traceId: record.identity.traceId,
      idempotencyKey: record.idempotencyKey,
      payloadFingerprint: record.payloadFingerprint,
      args: record.detail.args as Record<string, unknown>,
      preview,
      held: record.outcome === "held_for_approval",
      status: write ? "applied" : rejected ? "rejected" : "pending",
      commandId: write?.commandId ?? null,
      stale: !write && preview.baseRevision !== revision,
    });
  }
  return proposals;
}

export async function findProposal(kernel: KernelAdapter, documentId: string, revision: number, id: number) {
  return (await listProposals(kernel, documentId, revision)).find((p) => p.id === id) ?? null;
}
