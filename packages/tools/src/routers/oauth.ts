import { createCallerFactory, router } from "../trpc";
import { oauthAuthorize } from "../procedures/oauth/oauth-authorize";
import { oauthConsentDecide } from "../procedures/oauth/oauth-consent-decide";
import { oauthConsentOpen } from "../procedures/oauth/oauth-consent-open";
import { oauthRegister } from "../procedures/oauth/oauth-register";
import { oauthToken } from "../procedures/oauth/oauth-token";

/**
 * The authorization server (decision 0027), a router of its own: each procedure is the decision of one protocol
 * endpoint, which the panel's OAuth routes (`/oauth/*`) call in process with their own limits. It is not part of
 * `appRouter`, so `/api/trpc` — the panel's door for everything else — has no second way in to any of them.
 */
export const oauthRouter = router({
  register: oauthRegister,
  token: oauthToken,
  authorize: oauthAuthorize,
  consent: router({ open: oauthConsentOpen, decide: oauthConsentDecide }),
});

export type OAuthRouter = typeof oauthRouter;
export const createOAuthCaller = createCallerFactory(oauthRouter);
