import { encodeFlow, safeReturnPath, SignInRefused } from "@mnote/identity";
import { NextResponse } from "next/server";
import { panelEnv } from "~/server/env";
import { oidcRedirectUri, relyingParty } from "~/server/oidc";
import { foreignOrigin } from "~/server/origin";
import { crossOriginRefusal, refuse } from "~/server/refusal";
import { OIDC_FLOW_COOKIE, OIDC_RETURN_COOKIE, oidcFlowCookieOptions, redirectTo, signInPath } from "~/server/session";

/** "Sign in with your identity provider": keep the flow in its cookie and send the browser to the provider. */
export async function POST(req: Request) {
  const rp = relyingParty();
  if (!rp) return refuse(404, "mnote_tool_not_found", "sign-in through an identity provider is not configured");
  if (foreignOrigin(req, panelEnv().allowedOrigins)) return crossOriginRefusal();
  const form = await req.formData().catch(() => null);
  const returnTo = safeReturnPath(form?.get("next"));
  try {
    const { url, flow } = await rp.start(oidcRedirectUri());
    const response = NextResponse.redirect(url, 303);
    response.headers.set("cache-control", "no-store");
    const cookieOptions = oidcFlowCookieOptions(panelEnv().secureCookies);
    response.cookies.set(OIDC_FLOW_COOKIE, encodeFlow(flow), cookieOptions);
    // The page to come back to rides beside the flow (the provider's round trip carries no form field).
    if (returnTo) response.cookies.set(OIDC_RETURN_COOKIE, returnTo, cookieOptions);
    else response.cookies.set(OIDC_RETURN_COOKIE, "", { ...cookieOptions, maxAge: 0 });
    return response;
  } catch (error) {
    if (!(error instanceof SignInRefused)) throw error;
    console.warn(`[panel] sign-in through the identity provider: ${error.message}`);
    return redirectTo(signInPath({ error: `oidc_${error.reason}`, returnTo }));
  }
}
