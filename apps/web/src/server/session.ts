import "server-only";
import { cookies } from "next/headers";
import { redirect } from "next/navigation";
import { NextResponse } from "next/server";
import { safeReturnPath } from "@mnote/identity";
import { createCaller } from "@mnote/tools";
import { createPanelContext } from "./context";
import { panelEnv } from "./env";
import { getKernel } from "./kernel";
import {
  afterSignInPath,
  OAUTH_RESUME_COOKIE,
  oauthResumeCookieOptions,
  SESSION_COOKIE,
  sessionCookieOptions,
  signInPath,
} from "./session-cookie";

export {
  afterSignInPath,
  OAUTH_RESUME_COOKIE,
  oauthResumeCookieOptions,
  OIDC_FLOW_COOKIE,
  OIDC_RETURN_COOKIE,
  oidcFlowCookieOptions,
  SESSION_COOKIE,
  sessionCookieOptions,
  signInPath,
  tokenFromCookieHeader,
} from "./session-cookie";

/** The panel's context for the request being rendered (server components, route handlers): its session cookie. */
export async function requestPanelContext() {
  const token = (await cookies()).get(SESSION_COOKIE)?.value ?? null;
  return createPanelContext({ kernel: await getKernel(), authorization: token, settings: panelEnv().tools });
}

export async function serverCaller() {
  return createCaller(await requestPanelContext());
}

/**
 * The router as the signed-in person, and who they are; no session sends the browser to sign in, and back to
 * `returnTo` (this page's own path) after it.
 */
export async function signedIn(returnTo: string | null = null) {
  const caller = await serverCaller();
  const me = await caller.panel.session.me().catch(() => null);
  if (!me) redirect(signInPath({ returnTo: safeReturnPath(returnTo) }));
  return { caller, me };
}

/**
 * Send the browser on to a path of this site. Not an HTTP redirect: Next rewrites
 * a Location header to its own bind address (`localhost`), which for a browser on
 * 127.0.0.1 is another origin without the session cookie just set. A relative
 * refresh stays on whatever origin the browser used.
 */
export function redirectTo(path: string) {
  // Only a path's characters, and `&` written as the HTML entity it must be inside an attribute.
  const href = path.replace(/[^\w/?=&.-]/g, "").replaceAll("&", "&amp;");
  return new NextResponse(
    `<!doctype html><html lang="en"><head><meta http-equiv="refresh" content="0;url=${href}"><title>mnote</title></head><body><a href="${href}">Continue</a></body></html>`,
    { status: 200, headers: { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" } },
  );
}

/**
 * The answer to every sign-in that worked (token, demo picker, identity provider): on to where the person was going
 * (a consent page waiting in its cookie, else the page they were opening, else home), that cookie spent, the
 * session's cookie set.
 */
export function signedInAnswer(req: Request, sessionToken: string, returnTo: string | null = null) {
  const { secureCookies } = panelEnv();
  const response = redirectTo(afterSignInPath(req.headers.get("cookie"), safeReturnPath(returnTo)));
  response.cookies.set(OAUTH_RESUME_COOKIE, "", { ...oauthResumeCookieOptions(secureCookies), maxAge: 0 });
  response.cookies.set(SESSION_COOKIE, sessionToken, sessionCookieOptions(secureCookies));
  return response;
}
