import type { ClientMetadata } from "./client-metadata";

/**
 * A client as the authorization server knows it: `registered` through RFC 7591 (its id is the server's `oac_…`), or
 * read from the `document` its client_id names (its id is that URL). Either way anonymous: anyone can register, and
 * anyone can publish a document naming any redirect URI, so neither kind is trusted to be sent anywhere unasked.
 */
export interface OAuthClient extends Omit<ClientMetadata, "grantTypes"> {
  clientId: string;
  kind: "registered" | "document";
}
