import { type NextRequest, NextResponse } from "next/server";
import { contentSecurityPolicy, newNonce } from "~/server/security-headers";

/**
 * Every panel response gets a Content-Security-Policy with a nonce of its own (Next's nonce pattern: the policy goes
 * on the request too, where Next's renderer finds the nonce and puts it on the scripts it writes). Pages are
 * rendered per request (they read the session), so every page has a fresh nonce. The other security headers are
 * static: next.config.ts.
 */
export function proxy(request: NextRequest) {
  // NODE_ENV is no setting of the panel's: Next fixes it at build time (`next dev` is development), and React's
  // development build needs eval for its error overlay.
  // eslint-disable-next-line no-restricted-properties -- see above
  const policy = contentSecurityPolicy(newNonce(), process.env.NODE_ENV === "development");
  const headers = new Headers(request.headers);
  headers.set("content-security-policy", policy);
  const response = NextResponse.next({ request: { headers } });
  response.headers.set("content-security-policy", policy);
  return response;
}

export const config = {
  // Everything but Next's static files (scripts, styles, fonts: a policy on them does nothing) and the route handlers
  // that answer JSON or a redirect (security-headers.ts NON_DOCUMENT_PATHS, which next.config.ts gives a fixed
  // policy). Next reads a matcher statically: it must be a literal here, kept equal to that list by proxy.test.ts.
  matcher: ["/((?!_next/static|_next/image|api/|oauth/token|oauth/register|oauth/metadata|\\.well-known/).*)"],
};
