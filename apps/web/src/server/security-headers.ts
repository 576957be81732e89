/**
 * What every panel response says about how a browser may use it (issue 31, finding 3: the panel could be framed by a
 * page on another port of the same host, where the Lax session cookie still goes along, and a click applied a held
 * change). No server-only import: proxy.ts and next.config.ts both read it.
 */

/** Sent on every response (next.config.ts `headers`): no framing, no MIME sniffing, no address to other sites. */
export const STATIC_SECURITY_HEADERS = [
  // For browsers that predate CSP's frame-ancestors; both say the same.
  { key: "x-frame-options", value: "DENY" },
  { key: "x-content-type-options", value: "nosniff" },
  // `same-origin`, not `no-referrer`: under no-referrer a browser sends `Origin: null` with the page's own form
  // posts, which the cross-site check must refuse; and the OAuth request in an address (state, code_challenge) goes
  // to no other site.
  { key: "referrer-policy", value: "same-origin" },
] as const;

/**
 * The paths proxy.ts leaves alone: route handlers that answer JSON or a redirect, never a document with scripts.
 * They must stay out of the proxy for a second reason: Next buffers a request's whole body before a proxy runs, so a
 * body over the door's cap (which the route refuses from its declared length, unread) would hang there instead.
 */
export const NON_DOCUMENT_PATHS = [
  "/api/:path*",
  "/oauth/token",
  "/oauth/register",
  "/oauth/metadata",
  "/.well-known/:path*",
];

/** Their policy: nothing may load from them as a document, and nothing may frame them (issue 31, finding 3). */
export const NON_DOCUMENT_CONTENT_SECURITY_POLICY = "default-src 'none'; frame-ancestors 'none'";

/** A fresh, unguessable nonce for one response (128 random bits, base64). */
export function newNonce(): string {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return btoa(String.fromCharCode(...bytes));
}

/**
 * The Content-Security-Policy of one response. Scripts only from the panel itself or carrying this response's nonce
 * (Next puts it on its own inline scripts when it finds it in the request's CSP header: proxy.ts); `'strict-dynamic'`
 * lets those load the chunks they need. Styles from the panel or with the nonce; style *attributes* are allowed,
 * because the virtualized lists position rows with them (React writes them; no script runs from a style).
 * No `form-action`: Chromium applies it to the redirect after a form post, and the OAuth consent's Allow redirects to
 * the client's registered redirect URI, which no static list can name.
 */
export function contentSecurityPolicy(nonce: string, development = false): string {
  return [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${development ? " 'unsafe-eval'" : ""}`,
    `style-src 'self' 'nonce-${nonce}'`,
    "style-src-attr 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self'",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ].join("; ");
}
