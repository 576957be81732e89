/** The session cookie holds an mnote person token; everything the panel does is done with it. */
export const SESSION_COOKIE = "mnote_session";

/**
 * Every session cookie the panel sets or clears, with these options and no others.
 * `secure` is MNOTE_SECURE_COOKIES=1 (panelEnv): required whenever the panel is served over HTTPS.
 */
export function sessionCookieOptions(secure: boolean) {
  return { httpOnly: true, sameSite: "lax" as const, path: "/", secure };
}

export function tokenFromCookieHeader(cookieHeader: string | null): string | null {
  const match = /(?:^|;\s*)mnote_session=([^;]+)/.exec(cookieHeader ?? "");
  if (!match) return null;
  try {
    return decodeURIComponent(match[1]!);
  } catch {
    return null; // a malformed escape is no token, not a crash
  }
}

/**
 * One sign-in through the identity provider in progress: its state, nonce and PKCE verifier, from the start to
 * the callback (10 minutes at most). Lax, so the provider's top-level redirect back brings it; scoped to the
 * sign-in routes; cleared by the callback whatever its outcome, so a callback URL works once.
 */
export const OIDC_FLOW_COOKIE = "mnote_oidc_flow";

/**
 * An agent's authorization request a signed-out person opened (decision 0027): the consent page keeps its query here
 * (base64url, 10 minutes), and the sign-in that follows sends the browser back to it instead of home.
 */
export const OAUTH_RESUME_COOKIE = "mnote_oauth_resume";

export function oauthResumeCookieOptions(secure: boolean) {
  return { httpOnly: true, sameSite: "lax" as const, path: "/", secure, maxAge: 600 };
}

/**
 * Where a sign-in goes next: back to the consent page the cookie names, else to the page the person was opening
 * (`returnTo`, already a `safeReturnPath`), else home.
 */
export function afterSignInPath(cookieHeader: string | null, returnTo: string | null = null): string {
  const match = /(?:^|;\s*)mnote_oauth_resume=([A-Za-z0-9_-]{1,8000})(?:;|$)/.exec(cookieHeader ?? "");
  return match ? `/oauth/authorize?resume=${match[1]}` : (returnTo ?? "/");
}

/**
 * The page a sign-in through the identity provider returns to, from the start to the callback (the provider's
 * round trip carries no form field): a `safeReturnPath`, scoped and timed like the flow's own cookie.
 */
export const OIDC_RETURN_COOKIE = "mnote_oidc_return";

/**
 * The sign-in page with its error (one of the page's own keys) and the page to return to (a `safeReturnPath`, or
 * none). Written as it is, not percent-encoded: a return path's characters (`A-Z a-z 0-9 _ . / -`) are all legal
 * in a query, and `redirectTo` keeps only such characters.
 */
export function signInPath(options: { error?: string; returnTo?: string | null } = {}): string {
  const query = [
    ...(options.error ? [`error=${options.error}`] : []),
    ...(options.returnTo ? [`next=${options.returnTo}`] : []),
  ];
  return query.length > 0 ? `/signin?${query.join("&")}` : "/signin";
}

export function oidcFlowCookieOptions(secure: boolean) {
  return { httpOnly: true, sameSite: "lax" as const, path: "/api/auth/oidc", secure, maxAge: 600 };
}
