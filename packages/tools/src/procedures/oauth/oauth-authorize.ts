import { AuthorizationParamsSchema } from "@mnote/oauth";
import { consentClient, vetRequest } from "./clients";
import { oauthProcedure } from "./oauth-procedure";

/**
 * oauth.authorize — the authorization request checked in full before anyone signs in: a signed-out person is asked
 * to sign in only for a request whose client, redirect URI and parameters all pass, and only such a request waits
 * for them (decision 0027). A problem is the standard error, for the authorization server's own page; nothing is
 * written and nothing is sent to the client.
 */
export const oauthAuthorize = oauthProcedure.input(AuthorizationParamsSchema).query(async ({ ctx, input }) => {
  const vetted = await vetRequest(ctx, input);
  if (!vetted.ok) return vetted;
  return { ok: true as const, client: consentClient(vetted.request) };
});
