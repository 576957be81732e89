import type { OAuthServerSettings } from "./settings";

/** An RFC 8707 resource, compared as its normalized URL; null for a value that is not one. */
export function normalizeResource(resource: string): string | null {
  try {
    const url = new URL(resource);
    return url.hash ? null : url.href;
  } catch {
    return null;
  }
}

/** The resource asked for, if it is one this server issues for (the default when none was named). */
export function resourceFor(settings: OAuthServerSettings, asked: string | null | undefined): string | null {
  if (!asked) return settings.resources[0] ?? null;
  const normalized = normalizeResource(asked);
  return settings.resources.find((resource) => normalizeResource(resource) === normalized) ?? null;
}
