/**
 * Is this state-changing request from another site? Browsers send `Origin` on every
 * cross-origin request and on same-origin POST/PUT/DELETE, so a session cookie riding on a
 * foreign page's form or fetch shows up here. Same origin is the `Host` the browser used;
 * `allowed` names other origins an operator lets in (MNOTE_PANEL_ORIGINS).
 *
 * No `Origin` at all is a client that is not a browser (curl, a script): it carries no
 * victim's cookie, only what it was given, so it is not a cross-site forgery. A browser
 * that omits it still says `Sec-Fetch-Site`.
 */
export function foreignOrigin(req: Request, allowed: readonly string[]): boolean {
  const origin = req.headers.get("origin");
  if (origin === null) {
    const site = req.headers.get("sec-fetch-site");
    return site === "cross-site" || site === "same-site";
  }
  if (allowed.includes(origin)) return false;
  let originHost: string;
  try {
    originHost = new URL(origin).host;
  } catch {
    return true; // "null" (a sandboxed frame, a file) or garbage
  }
  const host = req.headers.get("host") ?? new URL(req.url).host;
  return originHost !== host;
}
