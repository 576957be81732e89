import { type SqlKernel, openKernel } from "@mnote/kernel";
import { startBridge, type RunningBridge } from "@mnote/hermes-bridge";
import { createCaller, createToolsContext, OAUTH_DEFAULTS, type ToolsSettings } from "@mnote/tools";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { auth, type OAuthClientProvider, UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from "@modelcontextprotocol/sdk/shared/auth.js";
import { captureLogger } from "@mnote/hermes-bridge/testing";
import pkceChallenge from "pkce-challenge";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RateLimiter } from "@mnote/process";
import { afterSignInPath } from "./session-cookie";
import {
  handleAuthorize,
  handleDecision,
  handleMetadata,
  handleRegister,
  handleToken,
  OAUTH_PATHS,
  type OAuthServerOptions,
} from "./oauth-server";

/**
 * The panel's authorization server (decision 0027) against a real bridge: the panel's handlers answer at PANEL in
 * this process (the SDK client's fetch goes to them), the bridge listens on a loopback port, both on one kernel.
 */
const PANEL = "http://panel.test";
const REDIRECT = "http://127.0.0.1:53123/callback";

let kernel: SqlKernel;
let bridge: RunningBridge;
let otherBridge: RunningBridge;
let options: OAuthServerOptions;
let resource: string;
let session: string;
let otherSession: string;
let ownerId: string;
let pageRef: { workspaceId: string; documentId: string };

async function panelFetch(input: string | URL | Request, init?: RequestInit): Promise<Response> {
  const req = new Request(input, init);
  const path = new URL(req.url).pathname;
  if (path === OAUTH_PATHS.metadata) return handleMetadata(options);
  if (path === OAUTH_PATHS.register) return handleRegister(req, options);
  if (path === OAUTH_PATHS.token) return handleToken(req, options);
  if (path === OAUTH_PATHS.authorize)
    return req.method === "POST" ? handleDecision(req, options) : handleAuthorize(req, options);
  return new Response("not found", { status: 404 });
}

/** The SDK's fetch: the panel in process, everything else (the bridge) over HTTP. */
const fetchFn = (input: string | URL | Request, init?: RequestInit) =>
  new URL(input instanceof Request ? input.url : input).origin === PANEL ? panelFetch(input, init) : fetch(input, init);

const cookie = (token: string) => ({ cookie: `mnote_session=${encodeURIComponent(token)}` });

async function count(table: string) {
  return (await kernel.admin.tableSnapshot())[table]!.length;
}

/** Registers a client (RFC 7591) the way Hermes does: public, loopback callback, both grants. */
async function register(metadata: Partial<OAuthClientMetadata> = {}) {
  const res = await panelFetch(`${PANEL}${OAUTH_PATHS.register}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      client_name: "Hermes Agent",
      redirect_uris: [REDIRECT],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
      ...metadata,
    }),
  });
  return { res, body: (await res.json()) as Record<string, unknown> };
}

function authorizeUrl(params: Record<string, string | undefined>) {
  const url = new URL(`${PANEL}${OAUTH_PATHS.authorize}`);
  for (const [k, v] of Object.entries(params)) if (v !== undefined) url.searchParams.set(k, v);
  return url;
}

/** The consent page, as the signed-in person's browser gets it; its form's request secret. */
async function consentPage(url: URL, token = session) {
  const res = await panelFetch(url, { headers: cookie(token) });
  const html = await res.text();
  return { res, html, request: /name="request" value="([^"]+)"/.exec(html)?.[1] };
}

async function decide(request: string | undefined, decision: string, token = session, origin = PANEL) {
  const body = new URLSearchParams({ decision, ...(request ? { request } : {}) });
  return panelFetch(`${PANEL}${OAUTH_PATHS.authorize}`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", origin, ...cookie(token) },
    body: body.toString(),
  });
}

async function tokenRequest(fields: Record<string, string | undefined>, serverOptions = options) {
  const body = new URLSearchParams();
  for (const [k, v] of Object.entries(fields)) if (v !== undefined) body.set(k, v);
  const req = new Request(`${PANEL}${OAUTH_PATHS.token}`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: body.toString(),
  });
  const res = await handleToken(req, serverOptions);
  return { res, body: (await res.json()) as Record<string, string> };
}

/** A whole grant by hand: register, consent, code; answers what the token request needs. */
async function codeFor(extra: Record<string, string> = {}) {
  const { body: client } = await register();
  const pkce = await pkceChallenge();
  const { request } = await consentPage(
    authorizeUrl({
      response_type: "code",
      client_id: client.client_id as string,
      redirect_uri: REDIRECT,
      code_challenge: pkce.code_challenge,
      code_challenge_method: "S256",
      state: "st-1",
      resource,
      ...extra,
    }),
  );
  const answer = await decide(request, "approve");
  const location = new URL(answer.headers.get("location")!);
  return {
    clientId: client.client_id as string,
    code: location.searchParams.get("code")!,
    verifier: pkce.code_verifier,
  };
}

async function listTools(accessToken: string, bridgeUrl = bridge.url) {
  return fetch(`${bridgeUrl}/mcp`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${accessToken}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
    }),
  });
}

beforeAll(async () => {
  kernel = await openKernel(":memory:");
  const owner = await kernel.admin.createUser({ name: "Olga Owner", email: "olga@example.com" });
  const other = await kernel.admin.createUser({ name: "Otto Other" });
  ownerId = owner.id;
  const ws = await kernel.admin.createWorkspace({ name: "Research", ownerId: owner.id });
  const doc = await kernel.admin.createPage({
    workspaceId: ws.id,
    title: "Field notes",
    blocks: [{ id: "p1", type: "paragraph", text: "OAUTH-MARKER" }],
    createdBy: owner.id,
  });
  pageRef = { workspaceId: ws.id, documentId: doc.id };
  const person = (userId: string) =>
    kernel.admin
      .createToken({
        userId,
        holder: "person",
        scopes: ["page.read", "page.write", "artifact.write"],
        label: "panel sign-in",
      })
      .then((t) => t.token);
  session = await person(owner.id);
  otherSession = await person(other.id);
  const { logger } = captureLogger();
  bridge = await startBridge({ kernel, port: 0, logger, oauth: { authorizationServer: PANEL, resource: null } });
  otherBridge = await startBridge({ kernel, port: 0, logger, oauth: { authorizationServer: PANEL, resource: null } });
  resource = `${bridge.url}/mcp`;
  const toolsSettings: ToolsSettings = {
    idempotencyTtlMs: 3_600_000,
    oauth: { issuer: PANEL, resources: [resource, `${otherBridge.url}/mcp`], ...OAUTH_DEFAULTS },
  };
  options = { kernel: async () => kernel, toolsSettings };
});

afterAll(async () => {
  await bridge?.close();
  await otherBridge?.close();
  await kernel?.close();
});

describe("the bridge's /mcp is a protected resource (RFC 9728)", () => {
  it("answers 401 with the metadata's address when there is no token, and the metadata names the panel", async () => {
    const res = await fetch(`${bridge.url}/mcp`, { method: "POST", headers: { "content-type": "application/json" } });
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toBe(
      `Bearer realm="mnote", resource_metadata="${bridge.url}/.well-known/oauth-protected-resource"`,
    );
    for (const path of ["/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp"]) {
      const metadata = (await (await fetch(`${bridge.url}${path}`)).json()) as Record<string, unknown>;
      expect(metadata).toMatchObject({
        resource,
        authorization_servers: [PANEL],
        bearer_methods_supported: ["header"],
      });
    }
  });

  it("says invalid_token for a token it does not know", async () => {
    const res = await listTools("mnt_not-a-token");
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toMatch(/error="invalid_token"/);
  });

  it("keeps accepting agent tokens minted by the CLI or the panel (no resource)", async () => {
    const { token } = await kernel.admin.createToken({ userId: ownerId, holder: "agent", scopes: ["page.read"] });
    expect((await listTools(token)).status).toBe(200);
    expect((await listTools(token, otherBridge.url)).status).toBe(200);
  });
});

describe("the authorization server's metadata (RFC 8414)", () => {
  it("offers the code flow with PKCE S256 only, public clients and registration", async () => {
    const metadata = (await handleMetadata(options).json()) as Record<string, unknown>;
    expect(metadata).toMatchObject({
      issuer: PANEL,
      authorization_endpoint: `${PANEL}/oauth/authorize`,
      token_endpoint: `${PANEL}/oauth/token`,
      registration_endpoint: `${PANEL}/oauth/register`,
      response_types_supported: ["code"],
      code_challenge_methods_supported: ["S256"],
      token_endpoint_auth_methods_supported: ["none"],
    });
  });
});

describe("a signed-out person", () => {
  it("is asked to sign in, and the sign-in comes back to the same request's consent page", async () => {
    const { body: client } = await register();
    const pkce = await pkceChallenge();
    const url = authorizeUrl({
      response_type: "code",
      client_id: client.client_id as string,
      redirect_uri: REDIRECT,
      code_challenge: pkce.code_challenge,
      code_challenge_method: "S256",
      state: "back",
    });
    const before = await count("oauth_requests");
    const signedOut = await panelFetch(url);
    expect(signedOut.status).toBe(401);
    expect(await signedOut.text()).toContain('href="/signin"');
    expect(await count("oauth_requests")).toBe(before);
    const cookie = signedOut.headers.get("set-cookie")!;
    expect(cookie).toMatch(/^mnote_oauth_resume=[A-Za-z0-9_-]+; Path=\/; Max-Age=600; HttpOnly; SameSite=Lax$/);
    const next = afterSignInPath(cookie.split(";")[0]!);
    expect(next).toMatch(/^\/oauth\/authorize\?resume=/);
    const { html, request } = await consentPage(new URL(next, PANEL));
    expect(html).toContain("Hermes Agent");
    const back = new URL((await decide(request, "approve")).headers.get("location")!);
    expect(back.searchParams.get("state")).toBe("back");
    expect(afterSignInPath("mnote_session=x")).toBe("/");
    expect(afterSignInPath("mnote_oauth_resume=<script>")).toBe("/");
  });
});

describe("bad input is refused with the standard error and grants nothing", () => {
  it("registration: a redirect URI that is not https or loopback, a confidential client", async () => {
    expect((await register({ redirect_uris: ["http://evil.example.com/cb"] })).body.error).toBe("invalid_redirect_uri");
    expect((await register({ token_endpoint_auth_method: "client_secret_basic" })).body.error).toBe(
      "invalid_client_metadata",
    );
    expect((await register({ redirect_uris: [] as unknown as string[] })).body.error).toBe("invalid_client_metadata");
  });

  it("registration and token requests: an oversized body is refused unread, a spent budget is 429", async () => {
    const before = await count("oauth_clients");
    const big = await register({ client_name: "x".repeat(20_000) });
    expect([big.res.status, big.body.error]).toEqual([400, "invalid_client_metadata"]);
    const limiter = new RateLimiter({ ratePerSecond: 0.001, burst: 1 });
    const limitedOptions = { ...options, limiter };
    const post = () =>
      handleRegister(
        new Request(`${PANEL}${OAUTH_PATHS.register}`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ redirect_uris: [REDIRECT] }),
        }),
        limitedOptions,
      );
    expect((await post()).status).toBe(201);
    const refused = await post();
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).not.toBeNull();
    expect(await count("oauth_clients")).toBe(before + 1);
  });

  it("token requests: only failed ones spend the budget, and a good grant is answered when it is spent", async () => {
    const good = await codeFor();
    const limitedOptions = { ...options, limiter: new RateLimiter({ ratePerSecond: 0.001, burst: 2 }) };
    const post = (fields: Record<string, string>) => tokenRequest(fields, limitedOptions);
    const guess = async (n: number) =>
      (await post({ grant_type: "refresh_token", refresh_token: `made-up-${n}`, client_id: "x" })).res;
    const answers = [];
    for (let n = 0; n < 4; n++) answers.push(await guess(n));
    expect(answers.map((res) => res.status)).toEqual([401, 401, 429, 429]); // invalid_client, then spent
    expect(answers[2]!.headers.get("retry-after")).not.toBeNull();
    // The flood spent the budget; the client with a real code still gets its tokens, and then refreshes.
    const exchange = await post({
      grant_type: "authorization_code",
      code: good.code,
      code_verifier: good.verifier,
      client_id: good.clientId,
      redirect_uri: REDIRECT,
    });
    expect(exchange.res.status).toBe(200);
    const refreshed = await post({
      grant_type: "refresh_token",
      refresh_token: exchange.body.refresh_token!,
      client_id: good.clientId,
    });
    expect(refreshed.res.status).toBe(200);
    expect((await guess(9)).status).toBe(429);
  });

  it("an unregistered client is answered on the page, never redirected, and opens no request", async () => {
    const before = await count("oauth_requests");
    const { res, html } = await consentPage(
      authorizeUrl({
        response_type: "code",
        client_id: "oac_nobody",
        redirect_uri: REDIRECT,
        code_challenge: "x".repeat(43),
        code_challenge_method: "S256",
      }),
    );
    expect(res.status).toBe(400);
    expect(res.headers.get("location")).toBeNull();
    expect(html).toContain("invalid_client");
    expect(await count("oauth_requests")).toBe(before);
  });

  it("a redirect URI the client did not register is answered on the page, never redirected", async () => {
    const { body: client } = await register();
    const before = await count("oauth_requests");
    const { res, html } = await consentPage(
      authorizeUrl({
        response_type: "code",
        client_id: client.client_id as string,
        redirect_uri: "http://127.0.0.1:9/evil",
        code_challenge: "x".repeat(43),
        code_challenge_method: "S256",
      }),
    );
    expect(res.status).toBe(400);
    expect(res.headers.get("location")).toBeNull();
    expect(html).toContain("redirect_uri");
    expect(await count("oauth_requests")).toBe(before);
  });

  it("plain PKCE, no PKCE, and a resource this server does not issue for go back to the client as errors", async () => {
    const { body: client } = await register();
    const base = { response_type: "code", client_id: client.client_id as string, redirect_uri: REDIRECT, state: "s1" };
    const before = await count("oauth_requests");
    const cases: Array<[Record<string, string>, string]> = [
      [{ code_challenge: "x".repeat(43), code_challenge_method: "plain" }, "invalid_request"],
      [{}, "invalid_request"],
      [
        { code_challenge: "x".repeat(43), code_challenge_method: "S256", resource: "http://127.0.0.1:1/mcp" },
        "invalid_target",
      ],
      [{ code_challenge: "x".repeat(43), code_challenge_method: "S256", scope: "admin" }, "invalid_scope"],
    ];
    for (const [extra, error] of cases) {
      const { res } = await consentPage(authorizeUrl({ ...base, ...extra }));
      expect(res.status).toBe(302);
      const location = new URL(res.headers.get("location")!);
      expect(`${location.origin}${location.pathname}`).toBe(REDIRECT);
      expect(location.searchParams.get("error")).toBe(error);
      expect(location.searchParams.get("state")).toBe("s1");
      expect(location.searchParams.get("code")).toBeNull();
    }
    expect(await count("oauth_requests")).toBe(before);
  });

  it("consent: a missing, replayed or another session's request secret, or a cross-site post, is refused", async () => {
    const { body: client } = await register();
    const pkce = await pkceChallenge();
    const url = authorizeUrl({
      response_type: "code",
      client_id: client.client_id as string,
      redirect_uri: REDIRECT,
      code_challenge: pkce.code_challenge,
      code_challenge_method: "S256",
      resource,
    });
    const { request } = await consentPage(url);
    expect(request).toBeDefined();
    const missing = await decide(undefined, "approve");
    expect([missing.status, missing.headers.get("location")]).toEqual([400, null]);
    const crossSite = await decide(request, "approve", session, "http://evil.example.com");
    expect([crossSite.status, crossSite.headers.get("location")]).toEqual([403, null]);
    const foreign = await decide(request, "approve", otherSession);
    expect([foreign.status, foreign.headers.get("location")]).toEqual([400, null]);
    const tokensBefore = await count("tokens");
    const first = await decide(request, "approve");
    expect(first.status).toBe(303);
    const replayed = await decide(request, "approve");
    expect([replayed.status, replayed.headers.get("location")]).toEqual([400, null]);
    expect(await replayed.text()).toContain("already answered");
    expect(await count("tokens")).toBe(tokensBefore);
  });

  it("a denial sends access_denied back and no code", async () => {
    const { body: client } = await register();
    const pkce = await pkceChallenge();
    const { request } = await consentPage(
      authorizeUrl({
        response_type: "code",
        client_id: client.client_id as string,
        redirect_uri: REDIRECT,
        code_challenge: pkce.code_challenge,
        code_challenge_method: "S256",
        state: "z",
      }),
    );
    const location = new URL((await decide(request, "deny")).headers.get("location")!);
    expect(location.searchParams.get("error")).toBe("access_denied");
    expect(location.searchParams.get("code")).toBeNull();
  });

  it("token: a PKCE verifier that does not match spends the code and grants nothing", async () => {
    const { clientId, code } = await codeFor();
    const tokensBefore = await count("tokens");
    const wrong = (await pkceChallenge()).code_verifier;
    const { res, body } = await tokenRequest({
      grant_type: "authorization_code",
      code,
      code_verifier: wrong,
      client_id: clientId,
      redirect_uri: REDIRECT,
    });
    expect([res.status, body.error]).toEqual([400, "invalid_grant"]);
    expect(await count("tokens")).toBe(tokensBefore);
  });

  it("token: an unregistered client, another client's code, another redirect URI, another resource", async () => {
    const { clientId, code, verifier } = await codeFor();
    const unknown = await tokenRequest({
      grant_type: "authorization_code",
      code,
      code_verifier: verifier,
      client_id: "oac_nobody",
    });
    expect([unknown.res.status, unknown.body.error]).toEqual([401, "invalid_client"]);
    const { body: other } = await register();
    const foreign = await tokenRequest({
      grant_type: "authorization_code",
      code,
      code_verifier: verifier,
      client_id: other.client_id as string,
    });
    expect(foreign.body.error).toBe("invalid_grant");
    // The code was spent by that try: even the right client gets nothing now.
    const spent = await tokenRequest({
      grant_type: "authorization_code",
      code,
      code_verifier: verifier,
      client_id: clientId,
      redirect_uri: REDIRECT,
    });
    expect(spent.body.error).toBe("invalid_grant");

    const second = await codeFor();
    const redirect = await tokenRequest({
      grant_type: "authorization_code",
      code: second.code,
      code_verifier: second.verifier,
      client_id: second.clientId,
      redirect_uri: "http://127.0.0.1:1/other",
    });
    expect(redirect.body.error).toBe("invalid_grant");

    const third = await codeFor();
    const target = await tokenRequest({
      grant_type: "authorization_code",
      code: third.code,
      code_verifier: third.verifier,
      client_id: third.clientId,
      resource: `${otherBridge.url}/mcp`,
    });
    expect(target.body.error).toBe("invalid_target");
    const elsewhere = await tokenRequest({
      grant_type: "authorization_code",
      code: third.code,
      code_verifier: third.verifier,
      client_id: third.clientId,
      resource: "http://127.0.0.1:1/mcp",
    });
    expect(elsewhere.body.error).toBe("invalid_target"); // refused before the code is looked at
    const bad = await tokenRequest({ grant_type: "password", client_id: clientId });
    expect(bad.body.error).toBe("unsupported_grant_type");
  });

  it("a token bound to one bridge is refused by another (RFC 8707)", async () => {
    const { clientId, code, verifier } = await codeFor();
    const { body } = await tokenRequest({
      grant_type: "authorization_code",
      code,
      code_verifier: verifier,
      client_id: clientId,
      redirect_uri: REDIRECT,
      resource,
    });
    expect((await listTools(body.access_token!)).status).toBe(200);
    const refused = await listTools(body.access_token!, otherBridge.url);
    expect(refused.status).toBe(401);
    expect(refused.headers.get("www-authenticate")).toMatch(/error="invalid_token"/);
  });

  it("a refresh token used twice revokes the whole grant", async () => {
    const { clientId, code, verifier } = await codeFor();
    const first = (
      await tokenRequest({
        grant_type: "authorization_code",
        code,
        code_verifier: verifier,
        client_id: clientId,
        redirect_uri: REDIRECT,
      })
    ).body;
    const second = (
      await tokenRequest({ grant_type: "refresh_token", refresh_token: first.refresh_token, client_id: clientId })
    ).body;
    expect(second.access_token).toBeDefined();
    expect(second.refresh_token).not.toBe(first.refresh_token);
    expect((await listTools(first.access_token!)).status).toBe(401); // rotated out
    expect((await listTools(second.access_token!)).status).toBe(200);
    const reuse = await tokenRequest({
      grant_type: "refresh_token",
      refresh_token: first.refresh_token,
      client_id: clientId,
    });
    expect([reuse.res.status, reuse.body.error]).toEqual([400, "invalid_grant"]);
    expect((await listTools(second.access_token!)).status).toBe(401);
    const after = await tokenRequest({
      grant_type: "refresh_token",
      refresh_token: second.refresh_token,
      client_id: clientId,
    });
    expect(after.body.error).toBe("invalid_grant");
  });

  it("a code presented twice revokes the grant it made", async () => {
    const { clientId, code, verifier } = await codeFor();
    const fields = {
      grant_type: "authorization_code",
      code,
      code_verifier: verifier,
      client_id: clientId,
      redirect_uri: REDIRECT,
    };
    const first = (await tokenRequest(fields)).body;
    expect((await listTools(first.access_token!)).status).toBe(200);
    expect((await tokenRequest(fields)).body.error).toBe("invalid_grant");
    expect((await listTools(first.access_token!)).status).toBe(401);
  });
});

/** The MCP TypeScript SDK's OAuth client, driven as an MCP client with no token would be. */
class TestProvider implements OAuthClientProvider {
  client?: OAuthClientInformationMixed;
  saved?: OAuthTokens;
  verifier = "";
  authorizationUrl?: URL;
  readonly expectedState = `state-${Math.random().toString(36).slice(2)}`;
  get redirectUrl() {
    return REDIRECT;
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: "SDK test agent",
      redirect_uris: [REDIRECT],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  }
  state() {
    return this.expectedState;
  }
  clientInformation() {
    return this.client;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.client = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}

describe("the MCP SDK client's OAuth flow, end to end", () => {
  it("discovers, registers, gets consent, calls tools as the person's agent, refreshes, and is refused once revoked", async () => {
    const provider = new TestProvider();
    const serverUrl = new URL(`${bridge.url}/mcp`);
    const connect = async () => {
      const client = new Client({ name: "sdk-oauth-test", version: "1.0.0" });
      await client.connect(new StreamableHTTPClientTransport(serverUrl, { authProvider: provider, fetch: fetchFn }));
      return client;
    };
    // No token: the 401 sends the SDK through discovery and registration to the consent page.
    await expect(connect()).rejects.toBeInstanceOf(UnauthorizedError);
    expect(provider.client?.client_id).toMatch(/^oac_/);
    const url = provider.authorizationUrl!;
    expect(url.origin + url.pathname).toBe(`${PANEL}/oauth/authorize`);
    expect(url.searchParams.get("code_challenge_method")).toBe("S256");
    expect(url.searchParams.get("resource")).toBe(resource);

    // The person, signed in to the panel, reads the consent page and allows.
    const { html, request } = await consentPage(url);
    expect(html).toContain("SDK test agent");
    expect(html).toContain("Research");
    expect(html).toContain("page.write");
    const answer = await decide(request, "approve");
    expect(answer.status).toBe(303);
    const back = new URL(answer.headers.get("location")!);
    expect(back.searchParams.get("state")).toBe(provider.expectedState);
    expect(back.searchParams.get("iss")).toBe(PANEL);
    expect(await auth(provider, { serverUrl, authorizationCode: back.searchParams.get("code")!, fetchFn })).toBe(
      "AUTHORIZED",
    );

    const client = await connect();
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toContain("mnote_page_get");
    // /v1 is not the resource the token was issued for.
    const v1 = await fetch(`${bridge.url}/v1/whoami`, {
      headers: { authorization: `Bearer ${provider.saved!.access_token}` },
    });
    expect(v1.status).toBe(401);
    // A tool call runs as the consenting person's agent.
    const got = await client.callTool({
      name: "mnote_page_get",
      arguments: pageRef,
    });
    expect(got.isError).toBeFalsy();
    expect(JSON.stringify(got.content)).toContain("OAUTH-MARKER");
    // A write is an agent's: the workspace's approval policy holds it for the person.
    const held = await client.callTool({
      name: "mnote_page_update_title",
      arguments: { ...pageRef, title: "Renamed" },
    });
    expect(JSON.stringify(held.content)).toContain("mnote_tool_approval_required");
    expect((await kernel.admin.listPages(pageRef.workspaceId))[0]!.title).toBe("Field notes");
    await client.close();

    // Refresh: a new access secret and refresh token; the old access secret stops working.
    const before = provider.saved!;
    expect(await auth(provider, { serverUrl, fetchFn })).toBe("AUTHORIZED");
    expect(provider.saved!.access_token).not.toBe(before.access_token);
    expect(provider.saved!.refresh_token).not.toBe(before.refresh_token);
    expect((await listTools(before.access_token)).status).toBe(401);
    const refreshed = await connect();
    expect((await refreshed.listTools()).tools.length).toBeGreaterThan(0);
    await refreshed.close();

    // "Connect an agent" lists the grant as one of the person's agent tokens, and revoking it there ends it.
    const panel = createCaller(createToolsContext({ kernel, authorization: session, door: "panel" }));
    const listed = (await panel.panel.agents.list()).find((token) => token.label === "SDK test agent (OAuth)");
    expect(listed).toMatchObject({ live: true, scopes: ["page.read", "page.write", "artifact.write"] });
    await panel.panel.agents.revoke({ tokenId: listed!.id });
    expect((await listTools(provider.saved!.access_token)).status).toBe(401);
    const { body } = await tokenRequest({
      grant_type: "refresh_token",
      refresh_token: provider.saved!.refresh_token,
      client_id: provider.client!.client_id,
    });
    expect(body.error).toBe("invalid_grant");
  });
});
