import { handleAuthorize, handleDecision } from "~/server/oauth-server";
import { oauthOptions } from "~/server/oauth-routes";

export const dynamic = "force-dynamic";

/** The consent page (decision 0027). */
export function GET(req: Request) {
  return handleAuthorize(req, oauthOptions());
}

/** The consent form's answer. */
export function POST(req: Request) {
  return handleDecision(req, oauthOptions());
}
