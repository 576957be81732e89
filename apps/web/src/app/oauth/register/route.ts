import { handleRegister } from "~/server/oauth-endpoints";
import { oauthOptions } from "~/server/oauth-routes";

export const dynamic = "force-dynamic";

/** Dynamic client registration (RFC 7591, decision 0027). */
export function POST(req: Request) {
  return handleRegister(req, oauthOptions());
}
