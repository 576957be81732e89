import { sha256Hex } from "@mnote/kernel";

/** JSON with sorted keys, so two equal payloads always hash alike. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
}

/**
 * What makes two calls "the same payload" for idempotency: the tool, the page and
 * the parsed args. Run ids and dryRun are left out, so a retry, or the panel
 * applying an agent's dry run, matches the proposal it came from.
 */
export function payloadFingerprint(input: {
  toolName: string;
  workspaceId: string;
  documentId: string;
  args: unknown;
}): string {
  return sha256Hex(canonicalJson([input.toolName, input.workspaceId, input.documentId, input.args]));
}
