import { openPanelSession, safeReturnPath } from "@mnote/identity";
import { getKernel } from "~/server/kernel";
import { panelEnv } from "~/server/env";
import { foreignOrigin } from "~/server/origin";
import { crossOriginRefusal, refuse } from "~/server/refusal";
import { redirectTo, signedInAnswer, signInPath } from "~/server/session";

/**
 * The demo's sign-in picker: issue a short-lived person token for one of the demo users.
 * Only when MNOTE_DEV_SIGNIN_USERS names them (set by `npm start` on a database the demo
 * created), only for those users, only from the panel's own pages.
 */
export async function POST(req: Request) {
  const demoUsers = panelEnv().devSignInUsers;
  if (demoUsers.length === 0) return refuse(404, "mnote_tool_not_found", "dev sign-in is off");
  if (foreignOrigin(req, panelEnv().allowedOrigins)) return crossOriginRefusal();
  const form = await req.formData().catch(() => null);
  // A file sent under the field's name is not a user id (String() would make it "[object File]").
  const field = form?.get("userId");
  const userId = typeof field === "string" ? field : "";
  const returnTo = safeReturnPath(form?.get("next"));
  if (!demoUsers.includes(userId)) return redirectTo(signInPath({ error: "user", returnTo }));
  const kernel = await getKernel();
  const user = await kernel.admin.getUser(userId);
  if (!user) return redirectTo(signInPath({ error: "user", returnTo }));
  const token = await openPanelSession(kernel, user.id, "dev");
  return signedInAnswer(req, token, returnTo);
}
