import { AppError } from "../../app-error";
import { middleware, publicProcedure } from "../../trpc";
import { appErrors } from "../../panel/app-errors";
import { panelProcedure } from "../../panel/panel-procedure";

/** The authorization server's settings, or the contract's refusal where this process is none (the bridge, the CLI). */
const authorizationServer = middleware(({ ctx, next }) => {
  const oauth = ctx.settings.oauth;
  if (!oauth) throw new AppError("mnote_tool_unavailable", "this panel is not an OAuth authorization server");
  return next({ ctx: { oauth } });
});

/** The open endpoints (registration, token, the request's check): the client's proof is its PKCE verifier or grant. */
export const oauthProcedure = publicProcedure.use(appErrors).use(authorizationServer);

/** The consent itself: a signed-in person at the panel, as every panel procedure takes them. */
export const consentProcedure = panelProcedure.use(authorizationServer);
