import "server-only";
import { cookies } from "next/headers";
import { NextResponse } from "next/server";
import { createCaller, createToolsContext } from "@mnote/tools";
import { getKernel } from "./kernel";

export const SESSION_COOKIE = "mnote_session";

/** The session cookie holds an mnote person token; everything the panel does is done with it. */
export function tokenFromCookieHeader(cookieHeader: string | null): string | null {
  const match = /(?:^|;\s*)mnote_session=([^;]+)/.exec(cookieHeader ?? "");
  return match ? decodeURIComponent(match[1]!) : null;
}

export async function serverCaller() {
  const token = (await cookies()).get(SESSION_COOKIE)?.value ?? null;
  return createCaller(createToolsContext({ kernel: await getKernel(), authorization: token }));
}

export const devSignInEnabled = () => process.env.MNOTE_DEV_SIGNIN === "1";

/**
 * Send the browser on to a path of this site. Not an HTTP redirect: Next rewrites
 * a Location header to its own bind address (`localhost`), which for a browser on
 * 127.0.0.1 is another origin without the session cookie just set. A relative
 * refresh stays on whatever origin the browser used.
 */
export function redirectTo(path: string) {
  const href = path.replace(/[^\w/?=&.-]/g, "");
  return new NextResponse(
    `<!doctype html><html lang="en"><head><meta http-equiv="refresh" content="0;url=${href}"><title>mnote</title></head><body><a href="${href}">Continue</a></body></html>`,
    { status: 200, headers: { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" } },
  );
}
