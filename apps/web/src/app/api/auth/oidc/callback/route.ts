import {
  closePanelSession,
  decodeFlow,
  openPanelSession,
  personForIdentity,
  safeReturnPath,
  SignInRefused,
} from "@mnote/identity";
import { resolveToken } from "@mnote/tools";
import { cookies } from "next/headers";
import type { NextResponse } from "next/server";
import { panelEnv } from "~/server/env";
import { getKernel } from "~/server/kernel";
import { relyingParty } from "~/server/oidc";
import {
  OIDC_FLOW_COOKIE,
  OIDC_RETURN_COOKIE,
  oidcFlowCookieOptions,
  redirectTo,
  SESSION_COOKIE,
  signedInAnswer,
  signInPath,
} from "~/server/session";

/**
 * The provider sends the browser back here. The flow's cookie goes whatever happens (a callback works once);
 * the code is exchanged and the ID token checked (`OidcRelyingParty.finish`); its verified email must be a
 * user's. Only then is a session opened: every refusal creates nothing and lands on the sign-in page saying why.
 */
export async function GET(req: Request) {
  const rp = relyingParty();
  if (!rp) return redirectTo("/signin");
  const jar = await cookies();
  const flow = decodeFlow(jar.get(OIDC_FLOW_COOKIE)?.value);
  const returnTo = safeReturnPath(jar.get(OIDC_RETURN_COOKIE)?.value);
  const { secureCookies } = panelEnv();
  // Both of the flow's cookies go, whatever the outcome.
  const spent = (response: NextResponse) => {
    const gone = { ...oidcFlowCookieOptions(secureCookies), maxAge: 0 };
    response.cookies.set(OIDC_FLOW_COOKIE, "", gone);
    response.cookies.set(OIDC_RETURN_COOKIE, "", gone);
    return response;
  };
  const refuse = (reason: string) => spent(redirectTo(signInPath({ error: reason, returnTo })));
  let identity;
  try {
    identity = await rp.finish(flow, new URL(req.url).searchParams);
  } catch (error) {
    if (!(error instanceof SignInRefused)) throw error;
    console.warn(`[panel] sign-in through the identity provider refused: ${error.message}`);
    return refuse(`oidc_${error.reason}`);
  }
  const kernel = await getKernel();
  const person = await personForIdentity(kernel, identity, { autoProvision: rp.settings.autoProvision });
  if (!person.ok) return refuse(person.reason);
  // A session this browser had before ends with the new one.
  const previous = jar.get(SESSION_COOKIE)?.value;
  if (previous) await closePanelSession(kernel, await resolveToken(kernel, previous));
  const token = await openPanelSession(kernel, person.user.id, "oidc");
  return spent(signedInAnswer(req, token, returnTo));
}
