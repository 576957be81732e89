import { NextResponse } from "next/server";
import { getKernel } from "~/server/kernel";
import { devSignInEnabled, redirectTo, SESSION_COOKIE } from "~/server/session";

/**
 * The demo's sign-in picker: issue a short-lived person token for a chosen user.
 * Only when MNOTE_DEV_SIGNIN=1 (set by `npm start` for the demo database).
 */
export async function POST(req: Request) {
  if (!devSignInEnabled()) return NextResponse.json({ error: "dev sign-in is off" }, { status: 404 });
  const form = await req.formData().catch(() => null);
  const userId = String(form?.get("userId") ?? "");
  const kernel = await getKernel();
  const user = userId ? await kernel.admin.getUser(userId) : null;
  if (!user) return redirectTo("/signin?error=user");
  const { token } = await kernel.admin.createToken({
    userId: user.id,
    holder: "person",
    scopes: ["page.read", "page.write", "artifact.write"],
    label: "panel dev sign-in",
    ttlSeconds: 12 * 3600,
  });
  const response = redirectTo("/");
  response.cookies.set(SESSION_COOKIE, token, { httpOnly: true, sameSite: "lax", path: "/" });
  return response;
}
