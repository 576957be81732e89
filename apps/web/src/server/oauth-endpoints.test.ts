import { randomBytes } from "node:crypto";
import { type SqlKernel, openKernel } from "@mnote/kernel";
import { startBridge, type RunningBridge } from "@mnote/hermes-bridge";
import { captureLogger } from "@mnote/hermes-bridge/testing";
import {
  authorizationParams,
  ClientDocuments,
  OAUTH_DEFAULTS,
  OAUTH_PATHS,
  s256Challenge,
  type AuthorizationParams,
} from "@mnote/oauth";
import {
  type DocumentServer,
  hermesClientDocument,
  serveClientDocuments,
  TEST_CA,
  TestOAuthClient,
} from "@mnote/oauth/testing";
import { RateLimiter } from "@mnote/process";
import { createCaller, createToolsContext, type ToolsSettings } from "@mnote/tools";
import {
  auth,
  Client,
  type OAuthClientMetadata,
  StreamableHTTPClientTransport,
  UnauthorizedError,
} from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  handleDecision,
  handleMetadata,
  handleRegister,
  handleSignInToContinue,
  handleToken,
  oauthCaller,
  type OAuthServerOptions,
} from "./oauth-endpoints";
import { afterSignInPath } from "./session-cookie";

/**
 * The panel's authorization server (decision 0027) against a real bridge: the panel's handlers answer at PANEL in
 * this process (the SDK client's fetch goes to them), the bridge listens on a loopback port, both on one kernel. The
 * consent page is a page of the panel: here its question is asked as the page asks it (`consent.open`), and its forms
 * are posted to their handlers.
 */
const PANEL = "http://127.0.0.1:9";
const REDIRECT = "http://127.0.0.1:53123/callback";
const DECISION = "/oauth/authorize/decision";
const SIGN_IN = "/oauth/authorize/sign-in";

let kernel: SqlKernel;
let bridge: RunningBridge;
let otherBridge: RunningBridge;
let documents: DocumentServer;
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
  if (path === DECISION) return handleDecision(req, options);
  if (path === SIGN_IN) return handleSignInToContinue(req, options);
  return new Response("not found", { status: 404 });
}

/** The SDK's fetch: the panel in process, everything else (the bridge) over HTTP. */
const fetchFn = (input: string | URL | Request, init?: RequestInit) =>
  new URL(input instanceof Request ? input.url : input).origin === PANEL ? panelFetch(input, init) : fetch(input, init);

const cookie = (token: string) => ({ cookie: `mnote_session=${encodeURIComponent(token)}` });

async function count(table: string) {
  return (await kernel.admin.tableSnapshot())[table]!.length;
}

function pkce() {
  const verifier = randomBytes(32).toString("base64url");
  return { verifier, challenge: s256Challenge(verifier) };
}

/** Registers a client (RFC 7591) the way Hermes does: public, loopback callback, both grants. */
async function register(metadata: Partial<OAuthClientMetadata> | Record<string, unknown> = {}) {
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

function paramsOf(url: URL): AuthorizationParams {
  const parsed = authorizationParams(url.searchParams);
  if (!parsed.ok) throw new Error(parsed.description);
  return parsed.params;
}

/** The consent page's question, as the page asks it for the signed-in person. */
async function consentPage(url: URL, token = session) {
  const answer = await (await oauthCaller(options, token)).consent.open(paramsOf(url));
  return { answer, request: answer.ok ? answer.requestSecret : undefined };
}

/** The consent form, posted from the page. */
async function decide(request: string | undefined, decision: string, token = session, origin = PANEL) {
  const body = new URLSearchParams({ decision, ...(request ? { request } : {}) });
  return panelFetch(`${PANEL}${DECISION}`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", origin, host: "127.0.0.1:9", ...cookie(token) },
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

/** A registered client and a good authorization request of it (PKCE S256 to REDIRECT), with `extra` parameters. */
async function goodRequest(extra: Record<string, string> = {}) {
  const { body: client } = await register();
  const { verifier, challenge } = pkce();
  const url = authorizeUrl({
    response_type: "code",
    client_id: client.client_id as string,
    redirect_uri: REDIRECT,
    code_challenge: challenge,
    code_challenge_method: "S256",
    ...extra,
  });
  return { clientId: client.client_id as string, url, verifier };
}

/** A whole grant by hand: register, consent, code; answers what the token request needs. */
async function codeFor(extra: Record<string, string> = {}) {
  const { clientId, url, verifier } = await goodRequest({ state: "st-1", resource, ...extra });
  const { request } = await consentPage(url);
  const answer = await decide(request, "approve");
  const location = new URL(answer.headers.get("location")!);
  return { clientId, code: location.searchParams.get("code")!, verifier };
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
  documents = await serveClientDocuments({}, { host: "client.test" });
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
    oauth: {
      issuer: PANEL,
      resources: [resource, `${otherBridge.url}/mcp`],
      ...OAUTH_DEFAULTS,
      // client.test resolves to the loopback document server: only the development switch reads from there.
      clientDocuments: new ClientDocuments({
        allowLoopback: true,
        ca: TEST_CA,
        resolveHost: async () => [{ address: "127.0.0.1", family: 4 }],
      }),
    },
  };
  options = { kernel: async () => kernel, toolsSettings };
});

afterAll(async () => {
  await bridge?.close();
  await otherBridge?.close();
  await documents?.close();
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
  it("offers the code flow with PKCE S256 only, public clients, registration, documents and RFC 9207's iss", async () => {
    const metadata = (await handleMetadata(options).json()) as Record<string, unknown>;
    expect(metadata).toMatchObject({
      issuer: PANEL,
      authorization_endpoint: `${PANEL}/oauth/authorize`,
      token_endpoint: `${PANEL}/oauth/token`,
      registration_endpoint: `${PANEL}/oauth/register`,
      response_types_supported: ["code"],
      code_challenge_methods_supported: ["S256"],
      token_endpoint_auth_methods_supported: ["none"],
      client_id_metadata_document_supported: true,
      authorization_response_iss_parameter_supported: true,
    });
  });
});

describe("a signed-out person", () => {
  it("signs in to a vetted request only, and the sign-in comes back to the same request's consent page", async () => {
    const { url } = await goodRequest({ state: "back" });
    const before = await count("oauth_requests");
    // What the signed-out page shows: who asks and where the answer goes, asked without a session.
    expect(await (await oauthCaller(options, null)).authorize(paramsOf(url))).toMatchObject({
      ok: true,
      client: { name: "Hermes Agent", redirectUri: REDIRECT, kind: "registered" },
    });
    const signIn = await panelFetch(`${PANEL}${SIGN_IN}`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: PANEL, host: "127.0.0.1:9" },
      body: new URLSearchParams({ request: url.searchParams.toString() }).toString(),
    });
    expect([signIn.status, signIn.headers.get("location")]).toEqual([303, `${PANEL}/signin`]);
    expect(await count("oauth_requests")).toBe(before);
    const setCookie = signIn.headers.get("set-cookie")!;
    expect(setCookie).toMatch(
      /^mnote_oauth_resume=[A-Za-z0-9_-]+; Path=\/; (Expires=[^;]+; )?Max-Age=600; HttpOnly; SameSite=lax$/i,
    );
    const next = afterSignInPath(setCookie.split(";")[0]!);
    expect(next).toMatch(/^\/oauth\/authorize\?resume=/);
    const resumed = new URLSearchParams(Buffer.from(next.split("resume=")[1]!, "base64url").toString("utf8"));
    const { answer, request } = await consentPage(authorizeUrl(Object.fromEntries(resumed)));
    expect(answer).toMatchObject({ ok: true, client: { name: "Hermes Agent" } });
    const back = new URL((await decide(request, "approve")).headers.get("location")!);
    expect(back.searchParams.get("state")).toBe("back");
    expect(afterSignInPath("mnote_session=x")).toBe("/");
    expect(afterSignInPath("mnote_oauth_resume=<script>")).toBe("/");
  });

  it("keeps no request that fails a check: no resume cookie, no redirect anywhere but the panel's page (issue 31)", async () => {
    const { body: evil } = await register({ redirect_uris: ["https://evil.example/phish"] });
    const bad = new URLSearchParams({
      response_type: "token",
      client_id: evil.client_id as string,
      redirect_uri: "https://evil.example/phish",
    });
    const signIn = await panelFetch(`${PANEL}${SIGN_IN}`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: PANEL, host: "127.0.0.1:9" },
      body: new URLSearchParams({ request: bad.toString() }).toString(),
    });
    expect(signIn.status).toBe(303);
    expect(signIn.headers.get("location")).toBe(`${PANEL}/oauth/authorize?${bad.toString()}`);
    expect(signIn.headers.get("set-cookie")).toBeNull();
    const crossSite = await panelFetch(`${PANEL}${SIGN_IN}`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: "https://evil.example" },
      body: new URLSearchParams({ request: bad.toString() }).toString(),
    });
    expect(crossSite.headers.get("set-cookie")).toBeNull();
  });
});

describe("bad input is refused with the standard error and grants nothing", () => {
  it("registration: a redirect URI that is not https or loopback, a confidential client, no redirect URI", async () => {
    expect((await register({ redirect_uris: ["http://evil.example.com/cb"] })).body.error).toBe("invalid_redirect_uri");
    expect((await register({ token_endpoint_auth_method: "client_secret_basic" })).body.error).toBe(
      "invalid_client_metadata",
    );
    expect((await register({ redirect_uris: [] as unknown as string[] })).body.error).toBe("invalid_redirect_uri");
    const notJson = await panelFetch(`${PANEL}${OAUTH_PATHS.register}`, { method: "POST", body: "{" });
    expect([notJson.status, ((await notJson.json()) as { error: string }).error]).toEqual([
      400,
      "invalid_client_metadata",
    ]);
  });

  it("a wrong method is refused in RFC 6749's shape, as every other OAuth refusal", async () => {
    for (const path of [OAUTH_PATHS.register, OAUTH_PATHS.token]) {
      const refused = await panelFetch(`${PANEL}${path}`, { method: "GET" });
      expect(refused.status).toBe(405);
      expect(await refused.json()).toEqual({ error: "invalid_request", error_description: "use POST" });
    }
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

  it("a bad authorization request is answered on the panel's page, never sent to the client (RFC 9700 §4.11.2)", async () => {
    const { body: client } = await register({ redirect_uris: [REDIRECT, "https://evil.example/phish"] });
    const base = { response_type: "code", client_id: client.client_id as string, state: "s1" };
    const s256 = { code_challenge: pkce().challenge, code_challenge_method: "S256" };
    const before = await count("oauth_requests");
    const cases: Array<[Record<string, string>, string]> = [
      [{ ...s256, response_type: "token", redirect_uri: "https://evil.example/phish" }, "unsupported_response_type"],
      [{ code_challenge: "x".repeat(43), code_challenge_method: "plain", redirect_uri: REDIRECT }, "invalid_request"],
      [{ redirect_uri: REDIRECT }, "invalid_request"],
      [{ ...s256, redirect_uri: REDIRECT, resource: "http://127.0.0.1:1/mcp" }, "invalid_target"],
      [{ ...s256, redirect_uri: REDIRECT, scope: "admin" }, "invalid_scope"],
      [{ ...s256, redirect_uri: "http://127.0.0.1:9/evil" }, "invalid_request"],
      [{ ...s256, client_id: "oac_nobody", redirect_uri: REDIRECT }, "invalid_client"],
    ];
    for (const [extra, error] of cases) {
      const { answer } = await consentPage(authorizeUrl({ ...base, ...extra }));
      expect(answer).toEqual({ ok: false, error, description: expect.any(String) });
    }
    expect(await count("oauth_requests")).toBe(before);
  });

  it("consent: a missing, replayed or another session's request secret, or a cross-site post, is refused", async () => {
    const { url } = await goodRequest({ resource });
    const { request } = await consentPage(url);
    expect(request).toBeDefined();
    const refused = (res: Response) => [res.status, res.headers.get("location")];
    expect(refused(await decide(undefined, "approve"))).toEqual([
      303,
      `${PANEL}/oauth/authorize/refused?reason=missing`,
    ]);
    const crossSite = await decide(request, "approve", session, "http://evil.example.com");
    expect(crossSite.headers.get("location")).toBe("/oauth/authorize/refused?reason=cross_site");
    expect(refused(await decide(request, "approve", otherSession))).toEqual([
      303,
      `${PANEL}/oauth/authorize/refused?reason=foreign_session`,
    ]);
    const tokensBefore = await count("tokens");
    const first = await decide(request, "approve");
    expect(new URL(first.headers.get("location")!).origin).toBe("http://127.0.0.1:53123");
    expect(refused(await decide(request, "approve"))).toEqual([303, `${PANEL}/oauth/authorize/refused?reason=used`]);
    expect(await count("tokens")).toBe(tokensBefore);
  });

  it("a denial sends access_denied back and no code", async () => {
    const { request } = await consentPage((await goodRequest({ state: "z" })).url);
    const location = new URL((await decide(request, "deny")).headers.get("location")!);
    expect(location.searchParams.get("error")).toBe("access_denied");
    expect(location.searchParams.get("iss")).toBe(PANEL);
    expect(location.searchParams.get("code")).toBeNull();
  });

  it("token: a stolen code presented with the wrong verifier grants nothing and stays good for its client", async () => {
    const { clientId, code, verifier } = await codeFor();
    const tokensBefore = await count("tokens");
    const fields = { grant_type: "authorization_code", code, client_id: clientId, redirect_uri: REDIRECT };
    const thief = await tokenRequest({ ...fields, code_verifier: pkce().verifier });
    expect([thief.res.status, thief.body.error]).toEqual([400, "invalid_grant"]);
    expect(await count("tokens")).toBe(tokensBefore);
    const rightful = await tokenRequest({ ...fields, code_verifier: verifier });
    expect(rightful.res.status).toBe(200);
    // The thief tries again after the redemption: refused, and the rightful grant lives on.
    expect((await tokenRequest({ ...fields, code_verifier: pkce().verifier })).body.error).toBe("invalid_grant");
    expect((await listTools(rightful.body.access_token!)).status).toBe(200);
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
    const redirect = await tokenRequest({
      grant_type: "authorization_code",
      code,
      code_verifier: verifier,
      client_id: clientId,
      redirect_uri: "http://127.0.0.1:1/other",
    });
    expect(redirect.body.error).toBe("invalid_grant");
    const target = await tokenRequest({
      grant_type: "authorization_code",
      code,
      code_verifier: verifier,
      client_id: clientId,
      resource: `${otherBridge.url}/mcp`,
    });
    expect(target.body.error).toBe("invalid_target");
    const elsewhere = await tokenRequest({
      grant_type: "authorization_code",
      code,
      code_verifier: verifier,
      client_id: clientId,
      resource: "http://127.0.0.1:1/mcp",
    });
    expect(elsewhere.body.error).toBe("invalid_target"); // refused before the code is looked at
    // None of those spent the code: its own client, with its verifier, still redeems it.
    const own = await tokenRequest({
      grant_type: "authorization_code",
      code,
      code_verifier: verifier,
      client_id: clientId,
      redirect_uri: REDIRECT,
    });
    expect(own.res.status).toBe(200);
    const bad = await tokenRequest({ grant_type: "password", client_id: clientId });
    expect(bad.body.error).toBe("unsupported_grant_type");
    const twice = await panelFetch(`${PANEL}${OAUTH_PATHS.token}`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "grant_type=authorization_code&code=a&code=b",
    });
    expect(((await twice.json()) as { error: string }).error).toBe("invalid_request");
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

  it("a code presented twice by its own client revokes the grant it made", async () => {
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

/** The person reads the consent page the client sent them to and allows; answers the callback's parameters. */
async function allow(provider: TestOAuthClient) {
  const { answer, request } = await consentPage(provider.authorizationUrl!);
  if (!answer.ok) throw new Error(answer.description);
  const response = await decide(request, "approve");
  expect(response.status).toBe(303);
  const back = new URL(response.headers.get("location")!);
  expect(back.searchParams.get("state")).toBe(provider.expectedState);
  return { answer, back };
}

/**
 * The MCP TypeScript SDK 2.x's OAuth client (`TestOAuthClient` records what it is handed): with a metadata document
 * URL as Hermes 0.21, by registration as older clients.
 */
describe("the MCP SDK client's OAuth flow, end to end", () => {
  it("discovers, registers, gets consent, calls tools as the person's agent, refreshes, and is refused once revoked", async () => {
    const provider = new TestOAuthClient({ redirectUrl: REDIRECT, clientName: "SDK test agent" });
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
    const { answer, back } = await allow(provider);
    expect(answer).toMatchObject({
      client: { name: "SDK test agent" },
      workspaces: [{ name: "Research" }],
      scopes: expect.arrayContaining(["page.write"]),
    });
    // The SDK checks RFC 9207's iss before redeeming the code: without it, it refuses (the server advertises it).
    const code = back.searchParams.get("code")!;
    await expect(auth(provider, { serverUrl, authorizationCode: code, fetchFn })).rejects.toThrow(/iss/i);
    expect(back.searchParams.get("iss")).toBe(PANEL);
    expect(await auth(provider, { serverUrl, authorizationCode: code, iss: PANEL, fetchFn })).toBe("AUTHORIZED");

    const client = await connect();
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toContain("mnote_page_get");
    // /v1 is not the resource the token was issued for.
    const v1 = await fetch(`${bridge.url}/v1/whoami`, {
      headers: { authorization: `Bearer ${provider.saved!.access_token}` },
    });
    expect(v1.status).toBe(401);
    // A tool call runs as the consenting person's agent.
    const got = await client.callTool({ name: "mnote_page_get", arguments: pageRef });
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

  it("identifies itself by its metadata document when the server offers that, as Hermes 0.21 does (CIMD)", async () => {
    const path = "/hermes-agent/docs/oauth/client-metadata.json";
    const clientId = documents.url(path);
    documents.set(path, { body: hermesClientDocument(clientId), headers: { "cache-control": "max-age=600" } });
    const provider = new TestOAuthClient({
      redirectUrl: "http://127.0.0.1:27890/callback",
      clientName: "Hermes Agent",
      clientMetadataUrl: clientId,
    });
    const serverUrl = new URL(`${bridge.url}/mcp`);
    const registrations = await count("oauth_clients");
    const connect = async () => {
      const client = new Client({ name: "hermes-cimd-test", version: "1.0.0" });
      await client.connect(new StreamableHTTPClientTransport(serverUrl, { authProvider: provider, fetch: fetchFn }));
      return client;
    };
    await expect(connect()).rejects.toBeInstanceOf(UnauthorizedError);
    // No registration: the client_id is the document's URL.
    expect(provider.client?.client_id).toBe(clientId);
    expect(provider.authorizationUrl!.searchParams.get("client_id")).toBe(clientId);
    expect(await count("oauth_clients")).toBe(registrations);
    const { answer, back } = await allow(provider);
    expect(answer).toMatchObject({ client: { id: clientId, name: "Hermes Agent", kind: "document" } });
    expect(
      await auth(provider, {
        serverUrl,
        authorizationCode: back.searchParams.get("code")!,
        iss: back.searchParams.get("iss") ?? undefined,
        fetchFn,
      }),
    ).toBe("AUTHORIZED");
    const client = await connect();
    expect((await client.listTools()).tools.map((tool) => tool.name)).toContain("mnote_page_get");
    await client.close();
    const panel = createCaller(createToolsContext({ kernel, authorization: session, door: "panel" }));
    expect((await panel.panel.agents.list()).some((token) => token.label === "Hermes Agent (OAuth)")).toBe(true);
  });
});
