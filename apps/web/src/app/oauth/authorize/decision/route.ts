import { handleDecision } from "~/server/oauth-endpoints";
import { oauthOptions } from "~/server/oauth-routes";

export const dynamic = "force-dynamic";

/** The consent form's answer (decision 0027). */
export function POST(req: Request) {
  return handleDecision(req, oauthOptions());
}
