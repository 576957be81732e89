import type { AccessFacts, AuditOutcome, CallIdentity, IdempotencyRecord, TokenRecord } from "@mnote/kernel";
import { type Effect, type OutputEnvelope, type ParsedToolInput, safeId, type ToolErrorCode, type ToolName } from "@mnote/contract";
import type { ToolSpec } from "./tool-spec";

/** The envelope once it passed validation (the args typed per tool by the procedures). */
export type ParsedEnvelope = Omit<ParsedToolInput<ToolName>, "args"> & { args: Record<string, unknown> };

/**
 * What the checks learn about one call as it moves down the chain. The outermost
 * middleware reads it to write the envelope and the audit record, whichever check
 * ended the call.
 */
export interface CallState {
  tool: ToolSpec;
  startedAt: number;
  raw: unknown;
  token?: TokenRecord;
  /** The envelope checked against the contract (step 1 needs its ids, step 2 gives the verdict). */
  parsed?: { ok: true; input: ParsedEnvelope } | { ok: false; problem: string };
  input?: ParsedEnvelope;
  facts?: AccessFacts;
  fingerprint?: string;
  /** The caller's unexpired result for this write's idempotency key, read with the token. */
  storedResult?: IdempotencyRecord | null;
  /** A write whose key already holds a result for this payload: answer with it (not on a dry run). */
  replay?: IdempotencyRecord | null;
  /** The command an earlier call with this key applied; a dry run warns about it. */
  alreadyApplied?: string | null;
  /** Set when the kernel wrote the audit record inside the write's own transaction. */
  auditWritten?: boolean;
  audit?: { outcome: AuditOutcome; detail?: Record<string, unknown> | null };
}

/**
 * Echo only short, printable, storable strings the caller sent (`safeId`); never anything read
 * from the database. A refused call's ids land in the audit record, where PostgreSQL refuses NUL.
 */
function echo(raw: unknown, field: string): string | null {
  if (!raw || typeof raw !== "object") return null;
  return safeId((raw as Record<string, unknown>)[field]);
}

export function callIdentity(call: CallState): CallIdentity {
  const input = call.input;
  return {
    toolName: call.tool.name,
    workspaceId: input?.workspaceId ?? echo(call.raw, "workspaceId") ?? "",
    documentId: input?.documentId ?? echo(call.raw, "documentId") ?? "",
    actorId: call.token?.userId ?? echo(call.raw, "actorId") ?? "",
    tokenId: call.token?.id ?? null,
    holder: call.token?.holder ?? null,
    sessionId: input?.sessionId ?? echo(call.raw, "sessionId"),
    runId: input?.runId ?? echo(call.raw, "runId"),
    toolCallId: input?.toolCallId ?? echo(call.raw, "toolCallId"),
    traceId: input?.traceId ?? echo(call.raw, "traceId"),
  };
}

function envelopeHead(call: CallState) {
  return {
    toolName: call.tool.name,
    toolCallId: call.input?.toolCallId ?? echo(call.raw, "toolCallId"),
    traceId: call.input?.traceId ?? echo(call.raw, "traceId"),
  };
}

function auditRef(call: CallState, effect: Effect, commandId: string | null) {
  return {
    effect,
    commandId,
    workspaceId: call.input?.workspaceId ?? echo(call.raw, "workspaceId"),
    documentId: call.input?.documentId ?? echo(call.raw, "documentId"),
  };
}

export function successEnvelope<R>(call: CallState, result: R, effect: Effect, commandId: string | null): OutputEnvelope<R> {
  return { ok: true, ...envelopeHead(call), result, audit: auditRef(call, effect, commandId), error: null };
}

export function failureEnvelope(call: CallState, code: ToolErrorCode, message: string): OutputEnvelope<never> {
  return { ok: false, ...envelopeHead(call), result: null, audit: auditRef(call, "none", null), error: { code, message } };
}
