import { TOOL_NAMES, type ToolName } from "./tools";

/**
 * A tool's identity is `mnote.page.get`; model providers reject dots in function
 * names (^[a-zA-Z0-9_-]{1,64}$), so models are handed `mnote_page_get`.
 */
export function toProviderName(name: ToolName): string {
  return name.replaceAll(".", "_");
}

const byProviderName = new Map<string, ToolName>(TOOL_NAMES.map((n) => [toProviderName(n), n]));

/** Either spelling in, the canonical `mnote.*` name out; null for anything else. */
export function canonicalToolName(name: unknown): ToolName | null {
  if (typeof name !== "string") return null;
  if ((TOOL_NAMES as string[]).includes(name)) return name as ToolName;
  return byProviderName.get(name) ?? null;
}
