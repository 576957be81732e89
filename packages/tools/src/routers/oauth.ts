import { router } from "../trpc";
import { oauthRegister } from "../procedures/oauth/oauth-register";
import { oauthToken } from "../procedures/oauth/oauth-token";

/**
 * The authorization server's open endpoints (decision 0027): client registration and the token endpoint. No token
 * opens them: the client's proof is its PKCE verifier or its refresh token. The person's consent is panel.oauth.*.
 */
export const oauthRouter = router({ register: oauthRegister, token: oauthToken });
