import { handleToken } from "~/server/oauth-endpoints";
import { oauthOptions } from "~/server/oauth-routes";

export const dynamic = "force-dynamic";

/** The token endpoint (decision 0027). */
export function POST(req: Request) {
  return handleToken(req, oauthOptions());
}
