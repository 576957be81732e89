import { handleMetadata } from "~/server/oauth-endpoints";
import { oauthOptions } from "~/server/oauth-routes";

export const dynamic = "force-dynamic";

/** RFC 8414 metadata of the panel's authorization server (decision 0027). */
export function GET() {
  return handleMetadata(oauthOptions());
}
