import type { AccessFacts, AuditOutcome, CallIdentity, IdempotencyRecord, TokenRecord } from "@mnote/kernel";
import {
  echoEnvelopeIds,
  echoField,
  type EchoedField,
  type Effect,
  type EnvelopeIds,
  failureEnvelope,
  type OutputEnvelope,
  type ParsedToolInput,
  type ToolErrorCode,
  type ToolName,
} from "@mnote/contract";
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
  /** The person a panel conversation was asked by: the call acts for them (checkAskedFor). */
  askedBy?: string;
  fingerprint?: string;
  /** The caller's unexpired result for this write's idempotency key, read with the token. */
  storedResult?: IdempotencyRecord | null;
  /**
   * A write whose key already holds a result for this payload, or a held write a person has since applied:
   * answer with it (not on a dry run).
   */
  replay?: Pick<IdempotencyRecord, "commandId" | "result"> | null;
  /** The command an earlier call with this key applied; a dry run warns about it. */
  alreadyApplied?: string | null;
  /**
   * How the call's one audit record is written, decided once by whoever knows. Unset: the outermost middleware
   * writes a plain record (ok, or failed with the error's code). An outcome: the middleware writes that outcome and
   * its detail. `"kernel"`: the kernel already wrote it inside the applied command's own transaction, so the change
   * and its record are one; there is nothing left to write.
   */
  audit?: RouterAudit | "kernel";
}

/** An audit record the router writes itself: how the call ended, and what the record keeps of it. */
export interface RouterAudit {
  outcome: AuditOutcome;
  detail?: Record<string, unknown> | null;
}

/**
 * The ids a call without a valid token claimed, as an audit record's detail: kept for an operator
 * under a name that says they are unverified, never as anyone's identity.
 * Only what the contract's schema for each field accepts is kept (`echoField`), as on every door.
 */
const CLAIMED_FIELDS: readonly EchoedField[] = [
  "actorId",
  "workspaceId",
  "documentId",
  "sessionId",
  "runId",
  "toolCallId",
  "traceId",
];
export function unverifiedClaims(raw: unknown): { unverifiedClaims: Record<string, string> } | null {
  const claims: Record<string, string> = {};
  for (const field of CLAIMED_FIELDS) {
    const value = echoField(raw, field);
    if (value) claims[field] = value;
  }
  return Object.keys(claims).length ? { unverifiedClaims: claims } : null;
}

/**
 * Who made the call, as the audit records it. Only a live token says who a caller is: a call
 * without one is recorded with no actor, page, session, run or trace (they are claims, and a
 * forged `actorId: user_ada` must not land in Ada's trail or on her page's proposals list).
 */
export function callIdentity(call: CallState, targetVerified = true): CallIdentity {
  const input = call.input;
  if (!call.token) return anonymousIdentity(call.tool.name);
  // A caller refused because it may not read the page it named (issue 20): recorded as itself, under no workspace,
  // page, session or run of the target; what it named is kept as unverified claims (the record's detail).
  if (!targetVerified) {
    return {
      ...anonymousIdentity(call.tool.name),
      actorId: call.token.userId,
      tokenId: call.token.id,
      holder: call.token.holder,
    };
  }
  return {
    toolName: call.tool.name,
    workspaceId: input?.workspaceId ?? echoField(call.raw, "workspaceId") ?? "",
    documentId: input?.documentId ?? echoField(call.raw, "documentId") ?? "",
    actorId: call.token.userId,
    tokenId: call.token.id,
    holder: call.token.holder,
    sessionId: input?.sessionId ?? echoField(call.raw, "sessionId"),
    runId: input?.runId ?? echoField(call.raw, "runId"),
    toolCallId: input?.toolCallId ?? echoField(call.raw, "toolCallId"),
    traceId: input?.traceId ?? echoField(call.raw, "traceId"),
    askedBy: call.askedBy ?? null,
  };
}

/**
 * How the audit records a caller no live token vouches for: by the tool it named, and nothing else.
 * The router's checks and the door for unknown tool names both record such calls this way.
 */
export function anonymousIdentity(toolName: string): CallIdentity {
  return {
    toolName,
    workspaceId: "",
    documentId: "",
    actorId: "",
    tokenId: null,
    holder: null,
    sessionId: null,
    runId: null,
    toolCallId: null,
    traceId: null,
    askedBy: null,
  };
}

/** The ids the answer repeats: the validated envelope's, else what the caller sent as far as the contract lets it be echoed. */
function envelopeIds(call: CallState): EnvelopeIds {
  const input = call.input;
  if (!input) return echoEnvelopeIds(call.raw);
  return {
    toolCallId: input.toolCallId,
    traceId: input.traceId,
    workspaceId: input.workspaceId,
    documentId: input.documentId,
  };
}

export function successEnvelope<R>(
  call: CallState,
  result: R,
  effect: Effect,
  commandId: string | null,
): OutputEnvelope<R> {
  const ids = envelopeIds(call);
  return {
    ok: true,
    toolName: call.tool.name,
    toolCallId: ids.toolCallId,
    traceId: ids.traceId,
    result,
    audit: { effect, commandId, workspaceId: ids.workspaceId, documentId: ids.documentId },
    error: null,
  };
}

export function callFailure(call: CallState, code: ToolErrorCode, message: string): OutputEnvelope<never> {
  return failureEnvelope(call.tool.name, envelopeIds(call), { code, message });
}
