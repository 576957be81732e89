import {
  echoEnvelopeIds,
  echoToolName,
  failureEnvelope,
  type OutputEnvelope,
  TOOL_ERROR_HTTP_STATUS,
  type ToolErrorCode,
} from "@mnote/contract";

/**
 * The contract's failure envelope for a call the bridge refused before it reached the router (body
 * too large, not JSON, rate limited): built by the same functions the router uses, so the two answer
 * the same shape with the same ids. `fallback.traceId` is the trace the request's headers carried.
 */
export function bridgeFailure(
  name: string,
  raw: unknown,
  code: ToolErrorCode,
  message: string,
  fallback: { traceId?: string | null } = {},
): OutputEnvelope<never> {
  const ids = echoEnvelopeIds(raw);
  return failureEnvelope(
    echoToolName(name),
    { ...ids, traceId: ids.traceId ?? fallback.traceId ?? null },
    { code, message },
  );
}

/** 200 for ok, else the contract's status for the error code (documented in the README). */
export function httpStatusOf(output: OutputEnvelope): number {
  if (output.ok) return 200;
  return TOOL_ERROR_HTTP_STATUS[output.error?.code ?? "mnote_tool_unavailable"] ?? 500;
}
