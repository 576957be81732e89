import { storable } from "@mnote/contract";
import { z } from "zod";
import { publicProcedure } from "../../trpc";
import { appErrors } from "../panel/app-errors";
import { oauthError, oauthSettings, parseScopes, redirectUriProblem } from "./rules";

/**
 * The client metadata mnote keeps (RFC 7591 §2); the panel's route has checked the document against the MCP SDK's
 * schema and passes these fields on. A public client: `none` is the only token endpoint authentication, PKCE its proof.
 */
export const OAuthRegisterInput = z.object({
  clientName: storable(z.string().trim().max(100)).optional(),
  redirectUris: z.array(z.string().max(2000)).min(1).max(10),
  grantTypes: z.array(z.string().max(100)).max(10).optional(),
  responseTypes: z.array(z.string().max(100)).max(10).optional(),
  tokenEndpointAuthMethod: z.string().max(100).optional(),
  scope: z.string().max(500).optional(),
});

/** oauth.register — dynamic client registration (RFC 7591): anyone may register; consent is where a person decides. */
export const oauthRegister = publicProcedure
  .use(appErrors)
  .input(OAuthRegisterInput)
  .mutation(async ({ ctx, input }) => {
    oauthSettings(ctx);
    for (const uri of input.redirectUris) {
      const problem = redirectUriProblem(uri);
      if (problem) return oauthError("invalid_redirect_uri", problem);
    }
    const method = input.tokenEndpointAuthMethod ?? "none";
    if (method !== "none")
      return oauthError(
        "invalid_client_metadata",
        "only public clients (token_endpoint_auth_method none) register here",
      );
    const grants = input.grantTypes ?? ["authorization_code", "refresh_token"];
    if (!grants.every((grant) => grant === "authorization_code" || grant === "refresh_token"))
      return oauthError("invalid_client_metadata", "grant types are authorization_code and refresh_token");
    if (!(input.responseTypes ?? ["code"]).every((type) => type === "code"))
      return oauthError("invalid_client_metadata", "the only response type is code");
    const scopes = parseScopes(input.scope);
    if (!scopes) return oauthError("invalid_client_metadata", "scope names mnote capabilities only");
    const client = await ctx.kernel.oauth.registerClient({
      clientName: input.clientName || "unnamed MCP client",
      redirectUris: input.redirectUris,
      scope: scopes.length ? scopes.join(" ") : null,
    });
    return { ok: true as const, client, grantTypes: grants, tokenEndpointAuthMethod: method };
  });
