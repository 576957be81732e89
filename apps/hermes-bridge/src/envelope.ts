import {
  canonicalToolName,
  safeId,
  type OutputEnvelope,
  TOOL_ERROR_HTTP_STATUS,
  type ToolErrorCode,
} from "@mnote/contract";

/** Echo only short, printable strings the caller sent (the router's rule, `safeId`), never anything else. */
function echo(raw: unknown, field: string): string | null {
  if (!raw || typeof raw !== "object") return null;
  return safeId((raw as Record<string, unknown>)[field]);
}

/**
 * The contract's failure envelope for a call the bridge refused before it reached the
 * router (body too large, not JSON, rate limited): the same shape the router answers,
 * with the canonical tool name when the name is one of the contract's tools.
 */
export function bridgeFailure(
  name: string,
  raw: unknown,
  code: ToolErrorCode,
  message: string,
  fallback: { traceId?: string | null } = {},
): OutputEnvelope<never> {
  const toolName = canonicalToolName(name) ?? safeId(name) ?? "unknown";
  return {
    ok: false,
    toolName,
    toolCallId: echo(raw, "toolCallId"),
    traceId: echo(raw, "traceId") ?? fallback.traceId ?? null,
    result: null,
    audit: { effect: "none", commandId: null, workspaceId: echo(raw, "workspaceId"), documentId: echo(raw, "documentId") },
    error: { code, message },
  };
}

/** 200 for ok, else the contract's status for the error code (documented in the README). */
export function httpStatusOf(output: OutputEnvelope): number {
  if (output.ok) return 200;
  return TOOL_ERROR_HTTP_STATUS[output.error?.code ?? "mnote_tool_unavailable"] ?? 500;
}
