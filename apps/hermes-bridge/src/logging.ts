import {
  canonicalToolName,
  echoField,
  echoToolName,
  type Effect,
  type OutputEnvelope,
  safeId,
  TOOL_NAMES,
} from "@mnote/contract";
import { recordToolCall, toolLabel } from "@mnote/process";
import { pino, type DestinationStream, type Logger } from "pino";

export type BridgeLogger = Logger;
export type Transport = "http" | "mcp-http" | "mcp-stdio";

/**
 * The bridge's logger: JSON lines. `destination` lets a test capture the lines and
 * stdio mode send them to stderr (stdout carries the MCP protocol there).
 */
export function createLogger(options: { destination?: DestinationStream; level?: string } = {}): BridgeLogger {
  const settings = {
    name: "mnote-bridge",
    // The level comes from the process's checked configuration (MNOTE_BRIDGE_LOG_LEVEL, read in main.ts).
    level: options.level ?? "info",
    base: undefined,
    timestamp: pino.stdTimeFunctions.isoTime,
    // Defence in depth: the call logger below never passes these, but nothing else may either.
    redact: { paths: ["authorization", "token", "args", "envelope", "result", "headers"], remove: true },
  };
  return options.destination ? pino(settings, options.destination) : pino(settings);
}

/** The fields of one call's log line: ids and outcome only, never args, page content or tokens. */
export interface CallLogLine {
  transport: Transport;
  tool: string;
  ok: boolean;
  effect: Effect;
  errorCode: string | null;
  httpStatus?: number;
  durationMs: number;
  sessionId: string | null;
  runId: string | null;
  toolCallId: string | null;
  traceId: string | null;
  commandId: string | null;
}

const KNOWN_TOOLS: ReadonlySet<string> = new Set(TOOL_NAMES);

/**
 * One structured line per tool call, whichever transport carried it and wherever it ended.
 *
 * `afterAnswer`: the line (and the call's metrics) is written on the event loop's next turn instead of now, so the
 * door's answer, written in this turn, goes first. stdio asks for it: its answer leaves in the turn the call's
 * request arrived in (a SQLite kernel answers without waiting on I/O), and the line written before it was 20–25 µs
 * of a 300 µs `page.get` the client waited on (issue 37, docs/benchmarks.md section 3). Its duration is the call's,
 * taken now; the line is the same.
 */
export function logToolCall(
  logger: BridgeLogger,
  input: {
    transport: Transport;
    envelope: unknown;
    output: OutputEnvelope;
    startedAt: number;
    httpStatus?: number;
    afterAnswer?: boolean;
  },
) {
  const endedAt = performance.now();
  if (input.afterAnswer) setImmediate(() => writeCallLine(logger, input, endedAt));
  else writeCallLine(logger, input, endedAt);
}

function writeCallLine(
  logger: BridgeLogger,
  input: { transport: Transport; envelope: unknown; output: OutputEnvelope; startedAt: number; httpStatus?: number },
  endedAt: number,
) {
  const { envelope: raw, output } = input;
  const line: CallLogLine = {
    transport: input.transport,
    tool: echoToolName(output.toolName),
    ok: output.ok,
    effect: output.audit.effect,
    errorCode: output.error?.code ?? null,
    ...(input.httpStatus !== undefined ? { httpStatus: input.httpStatus } : {}),
    durationMs: Math.round((endedAt - input.startedAt) * 10) / 10,
    // The caller's ids by the contract's rule for each (`echoField`), as every door echoes them.
    sessionId: echoField(raw, "sessionId"),
    runId: echoField(raw, "runId"),
    toolCallId: echoField(output, "toolCallId") ?? echoField(raw, "toolCallId"),
    traceId: echoField(output, "traceId") ?? echoField(raw, "traceId"),
    commandId: safeId(output.audit.commandId),
  };
  // The one line per call is also the call's metrics (issue 20): labels are the tool (a contract name, else
  // `unknown`), the transport and `ok` or the error code, never an id.
  recordToolCall(
    toolLabel(canonicalToolName(line.tool) ?? line.tool, KNOWN_TOOLS),
    input.transport,
    output.ok ? "ok" : (output.error?.code ?? "failed"),
    (endedAt - input.startedAt) / 1000,
  );
  if (output.ok || output.error?.code !== "mnote_tool_unavailable") logger.info(line, "tool call");
  else logger.error(line, "tool call");
}
