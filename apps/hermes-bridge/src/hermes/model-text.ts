import type { OutputEnvelope } from "@mnote/contract";
import { EnvelopeJson } from "../envelope-json";

/**
 * The output envelope as JSON text that Hermes Agent classifies by what it means: for a success, no string token
 * spells `"error"` or `"failed"` (see EnvelopeJson, which writes it for every door).
 */
export function hermesSafeJson(output: OutputEnvelope): string {
  return EnvelopeJson.of(output).safe;
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
