import { checkClientMetadata } from "@mnote/oauth";
import { z } from "zod";
import { oauthProcedure } from "./oauth-procedure";

/**
 * oauth.register — dynamic client registration (RFC 7591), kept for clients that predate client ID metadata
 * documents: anyone may register (the client is anonymous; a person decides on the consent page). The document is
 * checked by the one rule client metadata has, wherever it comes from (`checkClientMetadata`).
 */
export const oauthRegister = oauthProcedure.input(z.unknown()).mutation(async ({ ctx, input }) => {
  const checked = checkClientMetadata(input);
  if (!checked.ok) return checked;
  const { clientName, redirectUris, scope, grantTypes } = checked.metadata;
  const client = await ctx.kernel.oauth.registerClient({ clientName, redirectUris, scope });
  return { ok: true as const, client, grantTypes };
});
