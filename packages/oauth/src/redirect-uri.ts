import { quoted } from "./errors";

/** The hosts RFC 8252 §7.3 lets a native client listen on over http (Hermes listens on 127.0.0.1 or localhost). */
export const LOOPBACK_HOSTS: ReadonlySet<string> = new Set(["127.0.0.1", "[::1]", "localhost"]);

/**
 * A redirect URI a client may name, registered (RFC 7591) or in its metadata document: https, or http on a loopback
 * address (RFC 8252 §7.3); absolute, no fragment (RFC 6749 §3.1.2), no credentials. Null when acceptable, else why not.
 */
export function redirectUriProblem(uri: string): string | null {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return `${quoted(uri, 100)} is not an absolute URL`;
  }
  if (url.hash || uri.includes("#")) return "a redirect URI has no fragment";
  if (url.username || url.password) return "a redirect URI carries no credentials";
  if (url.protocol === "https:") return null;
  if (url.protocol === "http:" && LOOPBACK_HOSTS.has(url.hostname)) return null;
  return "a redirect URI is https, or http on 127.0.0.1, [::1] or localhost";
}

/** The client's redirect URI with the answer's parameters (RFC 6749 §4.1.2, RFC 9207's `iss`). */
export function redirectWith(redirectUri: string, params: Record<string, string | null | undefined>): string {
  const url = new URL(redirectUri);
  for (const [key, value] of Object.entries(params)) if (value) url.searchParams.set(key, value);
  return url.href;
}
