import type { AuditRecord } from "@mnote/kernel";
import { z } from "zod";
import { AppError } from "../../app-error";
import { publicProcedure } from "../../trpc";
import { appErrors } from "../../panel/app-errors";

/**
 * One exported audit record: a line of `mnote audit export` and of the stream to an operator's endpoint. The fields
 * the trail shows, who acted and whether an agent did (`actorIsAgent`), the person an Ask Hermes run asked for
 * (`askedBy`), and the Hermes ids (session, run, tool call, trace). `id` is unique and only grows: a receiver
 * de-duplicates by it (delivery is at least once). No proposal previews or args: page content stays in mnote.
 */
export interface ExportedAuditRecord {
  id: number;
  at: string;
  toolName: string;
  effect: string;
  outcome: string;
  errorCode: string | null;
  workspaceId: string | null;
  documentId: string | null;
  actorId: string | null;
  actorIsAgent: boolean;
  tokenId: string | null;
  askedBy: string | null;
  sessionId: string | null;
  runId: string | null;
  toolCallId: string | null;
  traceId: string | null;
  commandId: string | null;
  idempotencyKey: string | null;
  baseRevision: number | null;
  durationMs: number | null;
}

export function exportedRecord(record: AuditRecord): ExportedAuditRecord {
  const identity = record.identity;
  return {
    id: record.id,
    at: record.at,
    toolName: identity.toolName,
    effect: record.effect,
    outcome: record.outcome,
    errorCode: record.errorCode ?? null,
    workspaceId: identity.workspaceId || null,
    documentId: identity.documentId || null,
    actorId: identity.actorId || null,
    actorIsAgent: identity.holder === "agent",
    tokenId: identity.tokenId,
    askedBy: identity.askedBy ?? null,
    sessionId: identity.sessionId,
    runId: identity.runId,
    toolCallId: identity.toolCallId,
    traceId: identity.traceId,
    commandId: record.commandId ?? null,
    idempotencyKey: record.idempotencyKey ?? null,
    baseRevision: record.baseRevision ?? null,
    durationMs: record.durationMs ?? null,
  };
}

/** An ISO instant (`2026-01-01T00:00:00Z`) or a day (`2026-01-01`, its first instant, UTC). */
const Instant = z
  .union([z.iso.datetime({ offset: true }), z.iso.date()])
  .transform((value) => new Date(value).toISOString());

/** The cursor a page of the export ends with: opaque to the operator, the last id it holds. */
const CursorSchema = z.string().regex(/^\d{1,18}$/, "a cursor is what a previous export printed");

export const AuditExportInput = z.object({
  since: Instant,
  until: Instant,
  workspaceId: z.string().min(1).max(200).optional(),
  cursor: CursorSchema.optional(),
  limit: z.number().int().min(1).max(5000).default(1000),
});

/**
 * operator.audit.export — one page of the audit records of [since, until), oldest first, after the cursor; the
 * next cursor, or null when the range is exhausted. The operator's CLI calls it in process (routers/operator.ts).
 */
export const auditExport = publicProcedure
  .use(appErrors)
  .input(AuditExportInput)
  .query(async ({ ctx, input }): Promise<{ records: ExportedAuditRecord[]; cursor: string | null }> => {
    if (input.since >= input.until) throw new AppError("mnote_tool_invalid_input", "--since must be before --until");
    const records = await ctx.kernel.listAuditForExport({
      since: input.since,
      until: input.until,
      workspaceId: input.workspaceId,
      afterId: input.cursor === undefined ? 0 : Number(input.cursor),
      limit: input.limit,
    });
    const last = records.at(-1);
    return {
      records: records.map(exportedRecord),
      cursor: records.length === input.limit && last ? String(last.id) : null,
    };
  });
