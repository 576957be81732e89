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

/** The ids a call without a valid token claimed: kept for an operator, never as anyone's identity. */
const CLAIMED_FIELDS = ["actorId", "workspaceId", "documentId", "sessionId", "runId", "toolCallId", "traceId"] as const;
export function unverifiedClaims(call: CallState): Record<string, string> | null {
  if (call.token) return null;
  const claims: Record<string, string> = {};
  for (const field of CLAIMED_FIELDS) {
    const value = echo(call.raw, field);
    if (value) claims[field] = value;
  }
  return Object.keys(claims).length ? claims : null;
}

/**
 * Who made the call, as the audit records it. Only a live token says who a caller is: a call
 * without one is recorded with no actor, page, session, run or trace (they are claims, and a
 * forged `actorId: user_ada` must not land in Ada's trail or on her page's proposals list).
 */
export function callIdentity(call: CallState): CallIdentity {
  const input = call.input;
  if (!call.token) {
    return {
      toolName: call.tool.name,
      workspaceId: "",
      documentId: "",
      actorId: "",
      tokenId: null,
      holder: null,
      sessionId: null,
      runId: null,
      toolCallId: null,
      traceId: null,
    };
  }
  return {
    toolName: call.tool.name,
    workspaceId: input?.workspaceId ?? echo(call.raw, "workspaceId") ?? "",
    documentId: input?.documentId ?? echo(call.raw, "documentId") ?? "",
    actorId: call.token.userId,
    tokenId: call.token.id,
    holder: call.token.holder,
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
