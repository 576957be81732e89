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
  const lower = result.slice(0, 500).toLowerCase();
  return lower.includes('"error"') || lower.includes('"failed"') || result.startsWith("Error");
}
