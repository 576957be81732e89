import { CAPABILITIES, type Capability } from "@mnote/contract";

/** The scopes asked for (space-separated mnote capabilities, duplicates dropped), or null when one is not one. */
export function parseScopes(scope: string | null | undefined): Capability[] | null {
  const asked = (scope ?? "").split(" ").filter(Boolean);
  if (!asked.every((item) => (CAPABILITIES as readonly string[]).includes(item))) return null;
  return [...new Set(asked)] as Capability[];
}

/** What a grant may hold: the scopes asked for that the person's session holds; none asked means all it holds. */
export function grantableScopes(asked: readonly Capability[], held: readonly Capability[]): Capability[] {
  return asked.length ? asked.filter((scope) => held.includes(scope)) : [...held];
}
