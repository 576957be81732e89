/**
 * Where a sign-in may send the browser back to: a page of the panel itself, never another site. A person who
 * opened a page while signed out signs in and lands on that page (`/signin?next=/w/ws_demo/p/doc_plan`), so the
 * value arrives from a URL anyone can write — an open redirect if taken as it is (`//evil.example`,
 * `/\\evil.example`, `https://evil.example`, `javascript:`).
 *
 * The rule: a path only (no scheme, host, query or fragment), starting with one `/`, of the characters the panel's
 * own paths use (ids are `A-Z a-z 0-9 _ -`), which the WHATWG URL parser resolves on a stand-in origin to the same
 * origin and the same path. Anything else is null: the caller goes home instead.
 */
const PANEL_PATH = /^\/(?![/\\])[A-Za-z0-9_./-]{0,500}$/;
const STAND_IN = "https://panel.invalid";

export function safeReturnPath(value: unknown): string | null {
  if (typeof value !== "string" || !PANEL_PATH.test(value)) return null;
  let url: URL;
  try {
    url = new URL(value, STAND_IN);
  } catch {
    return null;
  }
  if (url.origin !== STAND_IN || url.pathname !== value) return null;
  // The sign-in page itself is no place to return to (a loop), and the API is no page.
  if (value === "/signin" || value.startsWith("/signin/") || value.startsWith("/api/")) return null;
  return value;
}
