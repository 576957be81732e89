import { CODE_TTL_SECONDS, redirectWith } from "@mnote/oauth";
import { z } from "zod";
import { consentProcedure } from "./oauth-procedure";

export const OAuthDecideInput = z.object({
  requestSecret: z.string().max(200).optional(),
  approve: z.boolean(),
});

/** Why a consent form was refused: the page says which, and nothing is sent anywhere. */
export type ConsentRefusal = "missing" | "unknown" | "used" | "expired" | "foreign_session";

/**
 * oauth.consent.decide — the consent form's answer. The form's request secret is its CSRF token: made for this
 * session's consent page, good once and for ten minutes; a missing, replayed, expired or another session's one is
 * refused and sends nothing anywhere. Approving sends the browser to the redirect URI the person read on the page with
 * a code; denying, with access_denied — the only two ways this server sends anyone to a client (decision 0027).
 */
export const oauthConsentDecide = consentProcedure.input(OAuthDecideInput).mutation(async ({ ctx, input }) => {
  if (!input.requestSecret) return { ok: false as const, refusal: "missing" as ConsentRefusal };
  const decision = await ctx.kernel.oauth.decideRequest({
    requestSecret: input.requestSecret,
    sessionTokenId: ctx.token.id,
    approve: input.approve,
    codeTtlSeconds: CODE_TTL_SECONDS,
  });
  if (!decision.ok) return { ok: false as const, refusal: decision.reason as ConsentRefusal };
  const iss = ctx.oauth.issuer;
  return {
    ok: true as const,
    redirectTo: decision.approved
      ? redirectWith(decision.redirectUri, { code: decision.code, state: decision.state, iss })
      : redirectWith(decision.redirectUri, {
          error: "access_denied",
          error_description: "the person declined",
          state: decision.state,
          iss,
        }),
  };
});
