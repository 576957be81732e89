import { sha256Hex } from "@mnote/kernel";

/**
 * JSON with sorted keys, so two equal payloads always hash alike. Built with plain loops:
 * it runs on every write's payload, and entries/filter/sort/map allocated four arrays a level.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) {
    let out = "[";
    for (let i = 0; i < value.length; i++) out += (i ? "," : "") + canonicalJson(value[i]);
    return `${out}]`;
  }
  const record = value as Record<string, unknown>;
  // The default sort compares UTF-16 code units, as `<` does: the order every earlier fingerprint used.
  const keys = Object.keys(record).sort();
  let out = "{";
  for (const key of keys) {
    const item = record[key];
    if (item === undefined) continue;
    out += `${out.length > 1 ? "," : ""}${JSON.stringify(key)}:${canonicalJson(item)}`;
  }
  return `${out}}`;
}

/**
 * What makes two calls "the same payload" for idempotency: the tool, the page and
 * the parsed args. Run ids and dryRun are left out, so a retry, or the panel
 * applying an agent's dry run, matches the proposal it came from.
 */
export function payloadFingerprint(input: {
  toolName: string;
  workspaceId: string;
  /** Null for a workspace tool, whose envelope names no page. */
  documentId: string | null;
  args: unknown;
}): string {
  return sha256Hex(canonicalJson([input.toolName, input.workspaceId, input.documentId, input.args]));
}
