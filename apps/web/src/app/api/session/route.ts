import { hashToken, isTokenLive } from "@mnote/kernel";
import { NextResponse } from "next/server";
import { getKernel } from "~/server/kernel";
import { redirectTo, SESSION_COOKIE, tokenFromCookieHeader } from "~/server/session";

const cookieOptions = { httpOnly: true, sameSite: "lax" as const, path: "/", secure: process.env.MNOTE_SECURE_COOKIES === "1" };

/** Sign in with an mnote person token (issued by `mnote admin token create --holder person`). */
export async function POST(req: Request) {
  const form = await req.formData().catch(() => null);
  const token = String(form?.get("token") ?? "").trim();
  const kernel = await getKernel();
  const record = token ? await kernel.findTokenByHash(hashToken(token)) : null;
  if (!isTokenLive(record) || record.holder !== "person") {
    return redirectTo("/signin?error=token");
  }
  const response = redirectTo("/");
  response.cookies.set(SESSION_COOKIE, token, cookieOptions);
  return response;
}

/** Sign out; a token the dev picker issued is revoked with the session. */
export async function DELETE(req: Request) {
  const token = tokenFromCookieHeader(req.headers.get("cookie"));
  if (token) {
    const kernel = await getKernel();
    const record = await kernel.findTokenByHash(hashToken(token));
    if (record?.label === "panel dev sign-in") await kernel.admin.revokeToken(record.id);
  }
  const response = NextResponse.json({ signedOut: true });
  response.cookies.delete(SESSION_COOKIE);
  return response;
}
