import { randomUUID } from "node:crypto";
import { sha256Hex } from "@mnote/kernel";

/**
 * The idempotency key of a write whose model gave none. A key names one intended call,
 * never a payload: a retry of the same call replays, a new call with the same arguments
 * writes. So the key comes from the call's own identity when the caller sends one
 * (`_meta.idempotencyKey`, else the caller's session, run and tool-call ids: a retry of
 * the same Hermes tool call sends the same three), and is fresh for every call
 * otherwise. It is never derived from the arguments.
 *
 * The run id is part of it because a tool-call id alone is not one call: when a provider
 * sends none, Hermes makes one from the tool name and arguments (agent/codex_responses_adapter.py
 * `_deterministic_call_id`), so the same request in two turns has the same id. Hermes's
 * turn id (the plugin's runId) is new for every turn.
 */
export function idempotencyKeyForCall(call: {
  metaKey?: string | null;
  caller?: { sessionId: string; runId: string; toolCallId: string } | null;
}): string {
  if (call.metaKey) return call.metaKey;
  if (call.caller) {
    // Hashed: the three ids may each be 256 characters, a key at most 200.
    const { sessionId, runId, toolCallId } = call.caller;
    return `call_${sha256Hex(JSON.stringify([sessionId, runId, toolCallId]))}`;
  }
  return `call_${randomUUID()}`;
}
