import { closePanelSession, safeReturnPath } from "@mnote/identity";
import { checkPersonSignIn, resolveToken } from "@mnote/tools";
import { NextResponse } from "next/server";
import { getKernel } from "~/server/kernel";
import { panelEnv } from "~/server/env";
import { foreignOrigin } from "~/server/origin";
import { crossOriginRefusal } from "~/server/refusal";
import {
  redirectTo,
  SESSION_COOKIE,
  sessionCookieOptions,
  signedInAnswer,
  signInPath,
  tokenFromCookieHeader,
} from "~/server/session";

/**
 * Sign in with an mnote person token (issued by `mnote admin token create --holder person`). A token that does not
 * sign in is sent back with the one true reason (`checkPersonSignIn`: malformed, unknown, revoked, expired, an
 * agent's), and the page the person was opening (`next`) is kept either way.
 */
export async function POST(req: Request) {
  if (foreignOrigin(req, panelEnv().allowedOrigins)) return crossOriginRefusal();
  const form = await req.formData().catch(() => null);
  const field = form?.get("token");
  const token = typeof field === "string" ? field.trim() : "";
  const returnTo = safeReturnPath(form?.get("next"));
  const kernel = await getKernel();
  const signIn = await checkPersonSignIn(kernel, token);
  if (!signIn.ok) return redirectTo(signInPath({ error: `token_${signIn.problem}`, returnTo }));
  return signedInAnswer(req, token, returnTo);
}

/** Sign out; a session the panel opened (demo picker, identity provider) ends with its token. */
export async function DELETE(req: Request) {
  if (foreignOrigin(req, panelEnv().allowedOrigins)) return crossOriginRefusal();
  const token = tokenFromCookieHeader(req.headers.get("cookie"));
  if (token) {
    const kernel = await getKernel();
    await closePanelSession(kernel, await resolveToken(kernel, token));
  }
  const response = NextResponse.json({ signedOut: true });
  response.cookies.set(SESSION_COOKIE, "", { ...sessionCookieOptions(panelEnv().secureCookies), maxAge: 0 });
  return response;
}
