import { z } from "zod";
import { CODE_TTL_SECONDS, oauthError, oauthSettings, redirectWith } from "../oauth/rules";
import { panelProcedure } from "./panel-procedure";

export const OAuthDecideInput = z.object({
  requestSecret: z.string().max(200).optional(),
  approve: z.boolean(),
});

/**
 * panel.oauth.decide — the consent form's answer. The form's request secret is its CSRF token: it was made for this
 * session's consent page, works once and for ten minutes; a missing, replayed, expired or foreign one is refused and
 * sends nothing anywhere. Approving sends the browser back to the client with a code; denying, with access_denied.
 */
export const oauthDecide = panelProcedure.input(OAuthDecideInput).mutation(async ({ ctx, input }) => {
  const settings = oauthSettings(ctx);
  if (!input.requestSecret)
    return { kind: "error" as const, ...oauthError("invalid_request", "the consent form is missing its request") };
  const decision = await ctx.kernel.oauth.decideRequest({
    requestSecret: input.requestSecret,
    sessionTokenId: ctx.token.id,
    approve: input.approve,
    codeTtlSeconds: CODE_TTL_SECONDS,
  });
  if (!decision.ok)
    return {
      kind: "error" as const,
      ...oauthError(
        "invalid_request",
        decision.reason === "used"
          ? "this consent was already answered"
          : decision.reason === "expired"
            ? "this consent page expired; start again from the client"
            : "this consent form is not one this session opened",
      ),
    };
  return {
    kind: "redirect" as const,
    url: decision.approved
      ? redirectWith(decision.redirectUri, { code: decision.code, state: decision.state, iss: settings.issuer })
      : redirectWith(decision.redirectUri, {
          error: "access_denied",
          error_description: "the person declined",
          state: decision.state,
          iss: settings.issuer,
        }),
  };
});
