import { describe, expect, it } from "vitest";
import { authorizationParams, authorizationQuery, checkAuthorizationRequest } from "./authorization-request";
import type { OAuthClient } from "./client";
import { checkClientMetadata } from "./client-metadata";
import { authorizationServerMetadata } from "./metadata";
import { redirectUriProblem, redirectWith } from "./redirect-uri";
import { resourceFor } from "./resource";
import { grantableScopes, parseScopes } from "./scopes";
import { OAUTH_DEFAULTS, type OAuthServerSettings } from "./settings";
import { tokenParams } from "./token-request";

const SETTINGS: OAuthServerSettings = {
  issuer: "http://panel.test",
  resources: ["http://127.0.0.1:4100/mcp"],
  ...OAUTH_DEFAULTS,
};
const CLIENT: OAuthClient = {
  clientId: "oac_1",
  kind: "registered",
  clientName: "Hermes Agent",
  redirectUris: ["http://127.0.0.1:5/callback"],
  scope: null,
};
const GOOD = {
  responseType: "code",
  clientId: "oac_1",
  redirectUri: "http://127.0.0.1:5/callback",
  codeChallenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
  codeChallengeMethod: "S256",
  state: "s",
};

describe("the authorization request", () => {
  it("passes every rule and keeps what the consent request records", () => {
    const checked = checkAuthorizationRequest(SETTINGS, CLIENT, GOOD);
    expect(checked).toMatchObject({
      ok: true,
      request: { redirectUri: GOOD.redirectUri, resource: SETTINGS.resources[0], scopes: [], state: "s" },
    });
  });

  it("answers every problem as an error, never as somewhere to send the browser", () => {
    const cases: Array<[Partial<typeof GOOD> & Record<string, string | undefined>, string]> = [
      [{ redirectUri: "https://evil.example/phish" }, "invalid_request"],
      [{ responseType: "token" }, "unsupported_response_type"],
      [{ codeChallengeMethod: "plain" }, "invalid_request"],
      [{ codeChallenge: undefined }, "invalid_request"],
      [{ resource: "http://127.0.0.1:1/mcp" }, "invalid_target"],
      [{ scope: "admin" }, "invalid_scope"],
    ];
    for (const [change, error] of cases) {
      const checked = checkAuthorizationRequest(SETTINGS, CLIENT, { ...GOOD, ...change });
      expect(checked).toMatchObject({ ok: false, error });
      expect(Object.keys(checked)).toEqual(["ok", "error", "description"]);
    }
    expect(checkAuthorizationRequest(SETTINGS, null, GOOD)).toMatchObject({ error: "invalid_client" });
  });

  it("takes each parameter once (RFC 6749 §3.1) and writes them back as a query", () => {
    expect(authorizationParams(new URLSearchParams("client_id=a&client_id=b"))).toMatchObject({
      ok: false,
      error: "invalid_request",
    });
    const parsed = authorizationParams(new URLSearchParams("response_type=code&client_id=a&other=x"));
    expect(parsed).toEqual({ ok: true, params: { responseType: "code", clientId: "a" } });
    expect(authorizationQuery(GOOD).get("code_challenge_method")).toBe("S256");
    expect(tokenParams(new URLSearchParams("code=a&code=b"))).toMatchObject({ error: "invalid_request" });
  });
});

describe("the rules", () => {
  it("redirect URIs: https, or http on loopback; no fragment, no credentials", () => {
    expect(redirectUriProblem("https://app.example.com/cb")).toBeNull();
    for (const ok of ["http://127.0.0.1:5/callback", "http://localhost:5/callback", "http://[::1]:5/cb"])
      expect(redirectUriProblem(ok)).toBeNull();
    for (const bad of [
      "http://example.com/cb",
      "https://a.example.com/cb#x",
      "https://a.example.com/cb#",
      "https://u:p@a.example.com/",
      "cb",
      "javascript:alert(1)",
    ])
      expect(redirectUriProblem(bad)).not.toBeNull();
    expect(redirectWith("http://127.0.0.1:5/cb?x=1", { code: "c", state: null, iss: "http://panel.test" })).toBe(
      "http://127.0.0.1:5/cb?x=1&code=c&iss=http%3A%2F%2Fpanel.test",
    );
  });

  it("scopes are mnote capabilities; resources are the configured ones, compared as URLs", () => {
    expect(parseScopes("page.read  page.read page.write")).toEqual(["page.read", "page.write"]);
    expect(parseScopes("openid")).toBeNull();
    expect(grantableScopes(["page.write"], ["page.read"])).toEqual([]);
    expect(grantableScopes([], ["page.read"])).toEqual(["page.read"]);
    expect(resourceFor(SETTINGS, undefined)).toBe("http://127.0.0.1:4100/mcp");
    expect(resourceFor(SETTINGS, "HTTP://127.0.0.1:4100/mcp")).toBe("http://127.0.0.1:4100/mcp");
    expect(resourceFor(SETTINGS, "http://127.0.0.1:4101/mcp")).toBeNull();
  });

  it("client metadata: a public client of the code flow, loopback or https callbacks, a storable name", () => {
    const base = { redirect_uris: ["http://127.0.0.1:5/callback"] };
    expect(checkClientMetadata(base)).toMatchObject({ ok: true, metadata: { clientName: "unnamed MCP client" } });
    expect(checkClientMetadata({ ...base, redirect_uris: ["http://evil.example.com/cb"] })).toMatchObject({
      error: "invalid_redirect_uri",
    });
    expect(checkClientMetadata({ ...base, redirect_uris: [] })).toMatchObject({ error: "invalid_redirect_uri" });
    expect(checkClientMetadata({ ...base, token_endpoint_auth_method: "client_secret_basic" })).toMatchObject({
      error: "invalid_client_metadata",
    });
    expect(checkClientMetadata({ ...base, grant_types: ["client_credentials"] })).toMatchObject({
      error: "invalid_client_metadata",
    });
    expect(checkClientMetadata({ ...base, client_name: "a\u0000b" })).toMatchObject({
      error: "invalid_client_metadata",
    });
    expect(checkClientMetadata({ ...base, client_name: "x".repeat(101) })).toMatchObject({
      error: "invalid_client_metadata",
    });
    expect(checkClientMetadata("not an object")).toMatchObject({ error: "invalid_client_metadata" });
  });

  it("the metadata offers client ID metadata documents only where they are read, and always RFC 9207's iss", () => {
    expect(authorizationServerMetadata(SETTINGS)).not.toHaveProperty("client_id_metadata_document_supported");
    const reading = {
      ...SETTINGS,
      clientDocuments: { read: async () => ({ ok: true }) as never, handles: () => true },
    };
    expect(authorizationServerMetadata(reading)).toMatchObject({
      client_id_metadata_document_supported: true,
      authorization_response_iss_parameter_supported: true,
    });
  });
});
