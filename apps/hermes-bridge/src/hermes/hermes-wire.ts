/**
 * Hermes Agent's wire contract as our tests depend on it (Hermes v0.18.2, commit 614dc194):
 * small transcriptions of the rules Hermes applies to a tool's result text, kept here as
 * fixtures so a test fails when our answers would be misread. Not Hermes code: each rule
 * is restated from the file it names, and only the branches that apply to mnote tools.
 */

/** Python's truthiness for a parsed JSON value. */
function truthy(value: unknown): boolean {
  if (value === null || value === undefined || value === false || value === 0 || value === "") return false;
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === "object") return Object.keys(value).length > 0;
  return true;
}

/**
 * agent/display.py `_detect_tool_failure` for a tool that is neither `terminal` nor
 * `memory` nor a file-mutation tool: a JSON object with a truthy `error` (or `message`)
 * and an `error` key (or `success: false`) is a failure; otherwise the first 500
 * characters, lower-cased, must not contain `"error"` or `"failed"`, and the text must
 * not start with `Error`. Its result tags the line `[error]` and feeds the per-turn
 * "has failed N times" guardrail (agent/tool_guardrails.py, same substring rule).
 */
export function hermesDetectsFailure(result: string): boolean {
  let data: unknown;
  try {
    data = JSON.parse(result);
  } catch {
    data = undefined;
  }
  if (data && typeof data === "object" && !Array.isArray(data)) {
    const record = data as Record<string, unknown>;
    const err = truthy(record.error) ? record.error : record.message;
    if (truthy(err) && (record.success === false || "error" in record)) return true;
  }
  return hermesFallbackDetectsFailure(result);
}

/**
 * agent/tool_guardrails.py `classify_tool_failure`, the fallback a caller gets when it passes no verdict of its own
 * (Hermes's own code passes `_detect_tool_failure`'s): for a tool that is neither `terminal` nor `memory` nor a
 * file-mutation tool, only the substring rule — no JSON parsing.
 */
export function hermesFallbackDetectsFailure(result: string): boolean {
  const lower = result.slice(0, 500).toLowerCase();
  return lower.includes('"error"') || lower.includes('"failed"') || result.startsWith("Error");
}

/** Python's `json.dumps(value, ensure_ascii=False)` text (separators ", " and ": "), for size checks. */
export function pythonJsonDumps(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(pythonJsonDumps).join(", ")}]`;
  if (value && typeof value === "object") {
    return `{${Object.entries(value)
      .map(([key, item]) => `${JSON.stringify(key)}: ${pythonJsonDumps(item)}`)
      .join(", ")}}`;
  }
  return JSON.stringify(value);
}

export interface McpCallResult {
  content?: Array<{ type: string; text?: string }>;
  structuredContent?: unknown;
  isError?: boolean;
}

/**
 * tools/mcp_tool.py `_make_tool_handler`, for text content: what Hermes's MCP tool handler
 * returns to the agent (and so to the model) for a CallToolResult. `isError` gives
 * `{"error": text}`; otherwise text and structuredContent both present give both,
 * structuredContent alone gives `{"result": structured}`, text alone `{"result": text}`.
 */
export function hermesMcpHandlerResult(result: McpCallResult): string {
  const text = (result.content ?? [])
    .filter((block) => block.text)
    .map((block) => block.text)
    .join("\n");
  if (result.isError) return pythonJsonDumps({ error: text || "MCP tool returned an error" });
  const structured = result.structuredContent;
  if (structured !== undefined && structured !== null) {
    return pythonJsonDumps(text ? { result: text, structuredContent: structured } : { result: structured });
  }
  return pythonJsonDumps({ result: text });
}

/**
 * tools/mcp_tool.py circuit breaker (`_bump_server_error`, `_CIRCUIT_BREAKER_THRESHOLD` 3,
 * cooldown 60 s): after each call, a handler result whose JSON has a top-level `error` key
 * bumps the server's count, anything else resets it; at 3 every call to the server answers
 * "MCP server … is unreachable" without reaching it until the cooldown ends (tests never
 * wait for it, so here the breaker stays open).
 */
export class HermesMcpBreaker {
  static readonly THRESHOLD = 3;
  private consecutiveErrors = 0;

  get open(): boolean {
    return this.consecutiveErrors >= HermesMcpBreaker.THRESHOLD;
  }

  async call(run: () => Promise<McpCallResult>): Promise<string> {
    if (this.open) {
      return pythonJsonDumps({
        error: `MCP server 'mnote' is unreachable after ${this.consecutiveErrors} consecutive failures.`,
      });
    }
    const handled = hermesMcpHandlerResult(await run());
    const parsed = JSON.parse(handled) as Record<string, unknown>;
    this.consecutiveErrors = "error" in parsed ? this.consecutiveErrors + 1 : 0;
    return handled;
  }
}
