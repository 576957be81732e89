import { type InputEnvelope, InputEnvelopeSchema, type OutputEnvelope, type ToolError } from "./envelope";
import { LIMITS } from "./limits";
import { canonicalToolName } from "./names";
import { safeId } from "./text";

/**
 * What a refused call may repeat back of what its caller sent. Every door (the router, the bridge's HTTP
 * and MCP endpoints, the CLI) answers a call it refuses with the contract's failure envelope, and records
 * or logs the caller's ids: they all take them from here, so the doors cannot drift apart.
 */

/** The caller's fields an envelope, an audit record or a log line may repeat. */
export const ECHOED_FIELDS = [
  "workspaceId",
  "documentId",
  "actorId",
  "sessionId",
  "runId",
  "toolCallId",
  "traceId",
  "idempotencyKey",
] as const satisfies ReadonlyArray<keyof InputEnvelope>;
export type EchoedField = (typeof ECHOED_FIELDS)[number];

/**
 * A value the caller sent for `field`, when the input envelope's own schema for that field accepts it,
 * else null: ids up to 128 characters, trace fields up to 256, keys up to 200, all printable and storable
 * (no NUL, which PostgreSQL refuses in an audit record; no control character, which would forge a log
 * line). The schema is the rule, so an echoed id is always one the router would have accepted.
 */
export function echoValue(value: unknown, field: EchoedField): string | null {
  return typeof value === "string" && InputEnvelopeSchema.shape[field].safeParse(value).success ? value : null;
}

/** `raw[field]` by the rule of `echoValue`; null when `raw` is not an object. */
export function echoField(raw: unknown, field: EchoedField): string | null {
  if (!raw || typeof raw !== "object") return null;
  return echoValue((raw as Record<string, unknown>)[field], field);
}

/** The name a refused call is answered under: the canonical name of a contract tool, else the name as sent when it is a safe id. */
export function echoToolName(name: unknown): string {
  return canonicalToolName(name) ?? safeId(name, LIMITS.idLength) ?? "unknown";
}

/** The caller's ids an output envelope repeats (contract §3): the call's own and the page it named. */
export interface EnvelopeIds {
  toolCallId: string | null;
  traceId: string | null;
  workspaceId: string | null;
  documentId: string | null;
}

/** The envelope ids of a call the contract has not accepted (yet): each one only if its schema accepts it. */
export function echoEnvelopeIds(raw: unknown): EnvelopeIds {
  return {
    toolCallId: echoField(raw, "toolCallId"),
    traceId: echoField(raw, "traceId"),
    workspaceId: echoField(raw, "workspaceId"),
    documentId: echoField(raw, "documentId"),
  };
}

/** The contract's failure envelope (§3): no result, no effect, no command, and the caller's ids. */
export function failureEnvelope(toolName: string, ids: EnvelopeIds, error: ToolError): OutputEnvelope<never> {
  return {
    ok: false,
    toolName,
    toolCallId: ids.toolCallId,
    traceId: ids.traceId,
    result: null,
    audit: { effect: "none", commandId: null, workspaceId: ids.workspaceId, documentId: ids.documentId },
    error,
  };
}
