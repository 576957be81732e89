import { describeIssues, InputEnvelopeSchema } from "@mnote/contract";
import { z } from "zod";

/**
 * The reserved MCP argument through which an agent runtime names its own call: Hermes's
 * session id, its turn id (runId) and its tool-call id, put there by the mnote Hermes plugin
 * (hermes-plugin/mnote/mcp_ids.py). Hermes's MCP client sends no `_meta` and no id of
 * its own, so without this an audit row could not be joined to the Hermes transcript.
 * Not in any model schema: the model never sees or fills it.
 */
export const CALLER_ARGUMENT = "_caller";

// The same limits as the envelope's own id fields, from the one schema that defines them.
const CallerIdsSchema = z.strictObject({
  sessionId: InputEnvelopeSchema.shape.sessionId.optional(),
  runId: InputEnvelopeSchema.shape.runId.optional(),
  toolCallId: InputEnvelopeSchema.shape.toolCallId.optional(),
});
export type CallerIds = z.infer<typeof CallerIdsSchema>;

export type CallerIdsParse =
  | { ok: true; ids: CallerIds | null; modelArguments: Record<string, unknown> }
  | { ok: false; message: string; modelArguments: Record<string, unknown> };

/**
 * Split the reserved argument from the model's arguments. Absent: no ids. Present but
 * not the documented shape: a refusal the caller can read (the router's
 * mnote_tool_invalid_input), never a silent fallback to other ids.
 */
export function takeCallerIds(raw: Record<string, unknown>): CallerIdsParse {
  if (!Object.hasOwn(raw, CALLER_ARGUMENT)) return { ok: true, ids: null, modelArguments: raw };
  const { [CALLER_ARGUMENT]: value, ...modelArguments } = raw;
  const parsed = CallerIdsSchema.safeParse(value);
  if (!parsed.success) {
    return {
      ok: false,
      message: describeIssues(parsed.error, { prefix: [CALLER_ARGUMENT], max: 1 }),
      modelArguments,
    };
  }
  return { ok: true, ids: parsed.data, modelArguments };
}
