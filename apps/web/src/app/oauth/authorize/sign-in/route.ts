import { handleSignInToContinue } from "~/server/oauth-endpoints";
import { oauthOptions } from "~/server/oauth-routes";

export const dynamic = "force-dynamic";

/** "Sign in" on a signed-out consent page: the vetted request waits in a cookie while the person signs in. */
export function POST(req: Request) {
  return handleSignInToContinue(req, oauthOptions());
}
