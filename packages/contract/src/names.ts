import { TOOL_NAMES, type ToolName } from "./tools";

/**
 * A tool's identity is `mnote.page.get`; model providers reject dots in function
 * names (^[a-zA-Z0-9_-]{1,64}$), so models are handed `mnote_page_get`.
 */
export function toProviderName<N extends ToolName>(name: N): ProviderToolName<N> {
  return name.replaceAll(".", "_") as ProviderToolName<N>;
}

/** `mnote.page.get` → `mnote_page_get`, in the type system: a tool's name as model providers see it. */
type Underscored<S extends string> = S extends `${infer Head}.${infer Tail}` ? `${Head}_${Underscored<Tail>}` : S;
export type ProviderToolName<N extends ToolName = ToolName> = Underscored<N>;

const byProviderName = new Map<string, ToolName>(TOOL_NAMES.map((n) => [toProviderName(n), n]));

/** Either spelling in, the canonical `mnote.*` name out; null for anything else. */
export function canonicalToolName(name: unknown): ToolName | null {
  if (typeof name !== "string") return null;
  if ((TOOL_NAMES as string[]).includes(name)) return name as ToolName;
  return byProviderName.get(name) ?? null;
}
