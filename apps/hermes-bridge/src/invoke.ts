import { type OutputEnvelope, TOOL_ERROR_MESSAGES } from "@mnote/contract";
import type { SqlKernel } from "@mnote/kernel";
import { callTool, createToolsContext, type ToolsSettings } from "@mnote/tools";
import { bridgeFailure, httpStatusOf } from "./bridge-failure";
import { type BridgeLogger, logToolCall, type Transport } from "./logging";

export interface InvokeDeps {
  kernel: SqlKernel;
  logger: BridgeLogger;
  /** The process's validated router settings (read once at start); defaults when left out. */
  toolsSettings?: ToolsSettings;
  /** Write each call's log line after the door's answer (stdio, see logToolCall). */
  logAfterAnswer?: boolean;
}

/**
 * The bridge's one way to run a tool: the router via `callTool`, never a second
 * implementation. The answer is returned untouched; one log line records the call.
 */
export async function invokeTool(
  deps: InvokeDeps,
  call: {
    transport: Transport;
    name: string;
    envelope: unknown;
    authorization: string | null;
    startedAt?: number;
    /** The resource the door is (the bridge's /mcp as an OAuth protected resource); null elsewhere. */
    resource?: string | null;
  },
): Promise<OutputEnvelope> {
  const startedAt = call.startedAt ?? performance.now();
  let output: OutputEnvelope;
  try {
    // Every bridge transport is an agent door: person tokens are refused, agent writes held (docs/security.md).
    const ctx = createToolsContext({
      kernel: deps.kernel,
      authorization: call.authorization,
      door: "agent",
      settings: deps.toolsSettings,
      resource: call.resource ?? null,
      // The router's own failures (an unexpected error, a lost audit line) land in the bridge's JSON lines.
      logger: deps.logger,
    });
    output = await callTool(ctx, call.name, call.envelope);
  } catch (error) {
    // The router turns every failure into an envelope; this is only for the impossible case.
    // Only the error's class is logged: its message could quote data.
    deps.logger.error({ errorType: error instanceof Error ? error.name : typeof error }, "router threw");
    output = bridgeFailure(call.name, call.envelope, "mnote_tool_unavailable", TOOL_ERROR_MESSAGES.unavailable);
  }
  logToolCall(deps.logger, {
    transport: call.transport,
    envelope: call.envelope,
    output,
    startedAt,
    afterAnswer: deps.logAfterAnswer,
    ...(call.transport === "http" ? { httpStatus: httpStatusOf(output) } : {}),
  });
  return output;
}
