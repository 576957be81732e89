import type { OutputEnvelope } from "@mnote/contract";

/**
 * `"error"` or `"failed"` (any case) in JSON text. In valid JSON the last quote of such a match is
 * always a string token's closing quote (a quote inside a string is escaped, and no token can start
 * right after a word of another), so each match is a token that ends in the word right after a quote:
 * the token is exactly that word, or it ends in an escaped quote and the word (`"say \"error"`).
 * Those are the only places the text spells either quoted word. One pass over the text, no tokenizing.
 */
const QUOTED_WORD = /"(?:error|failed)"/gi;

function escapeFirstLetter(match: string): string {
  return `"\\u${match.charCodeAt(1).toString(16).padStart(4, "0")}${match.slice(2)}`;
}

/**
 * The output envelope as JSON text that Hermes Agent classifies by what it means.
 *
 * Hermes judges a tool result a failure when its first 500 characters contain `"error"`
 * or `"failed"` (agent/display.py `_detect_tool_failure`, agent/tool_guardrails.py), so
 * the contract's `"error": null` made every success read as a failure. For `ok: true`
 * the text here writes the first letter of each string token that would spell `"error"`
 * or `"failed"` as a `\u00XX` escape: `JSON.parse` gives back exactly the envelope
 * (`error: null` included), and neither quoted word appears in the text. A failure is
 * serialized plainly: it must stay a failure under both of Hermes's rules (the dict rule,
 * `data.get("error")` is the error object, and the substring rule).
 */
export function hermesSafeJson(output: OutputEnvelope): string {
  const text = JSON.stringify(output);
  if (!output.ok) return text;
  return text.replace(QUOTED_WORD, escapeFirstLetter);
}

/**
 * How a door writes its answer, chosen by the client: `hermes` for Hermes Agent (the
 * plugin sends it on every HTTP call; `mnote-bridge hermes config` puts it in the MCP
 * server's headers or env), `standard` for everyone else.
 */
export const RESULT_FORMS = ["standard", "hermes"] as const;
export type ResultForm = (typeof RESULT_FORMS)[number];

/** The request header (HTTP tool endpoint and /mcp) that selects the result form. */
export const RESULT_FORM_HEADER = "x-mnote-result-form";
/** The environment variable that selects it for `mnote-bridge mcp --stdio`. */
export const RESULT_FORM_ENV = "MNOTE_RESULT_FORM";

/** `hermes` (any case, spaces around) selects the Hermes form; anything else, or nothing, the standard one. */
export function parseResultForm(value: unknown): ResultForm {
  const first: unknown = Array.isArray(value) ? value[0] : value;
  return typeof first === "string" && first.trim().toLowerCase() === "hermes" ? "hermes" : "standard";
}
