/** The session cookie holds an mnote person token; everything the panel does is done with it. */
export const SESSION_COOKIE = "mnote_session";

/**
 * Every session cookie the panel sets or clears, with these options and no others.
 * `secure` when MNOTE_SECURE_COOKIES=1: required whenever the panel is served over HTTPS.
 */
export function sessionCookieOptions(env: Record<string, string | undefined> = process.env) {
  return { httpOnly: true, sameSite: "lax" as const, path: "/", secure: env.MNOTE_SECURE_COOKIES === "1" };
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
 * The demo users the sign-in picker may sign in (MNOTE_DEV_SIGNIN_USERS, comma-separated ids).
 * `npm start` sets it only on a database the demo created; empty means no picker.
 */
export function devSignInUsers(env: Record<string, string | undefined> = process.env): string[] {
  return (env.MNOTE_DEV_SIGNIN_USERS ?? "")
    .split(",")
    .map((id) => id.trim())
    .filter(Boolean);
}
