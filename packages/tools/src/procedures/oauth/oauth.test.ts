import { randomBytes } from "node:crypto";
import { openKernel, type SqlKernel } from "@mnote/kernel";
import { ClientDocuments, OAUTH_DEFAULTS, s256Challenge, type OAuthServerSettings } from "@mnote/oauth";
import { type DocumentServer, hermesClientDocument, serveClientDocuments, TEST_CA } from "@mnote/oauth/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appRouter } from "../../root";
import { createOAuthCaller } from "../../routers/oauth";
import { createToolsContext, type ToolsSettings } from "../../context";

/** The authorization server's procedures without HTTP (the panel's routes are tested in apps/web). */
const RESOURCE = "http://127.0.0.1:4100/mcp";
const REDIRECT = "http://127.0.0.1:27890/callback";

let kernel: SqlKernel;
let documents: DocumentServer;
let person: string;
let reader: string;
let agent: string;
let userId: string;
let settings: ToolsSettings;

beforeAll(async () => {
  kernel = await openKernel(":memory:");
  documents = await serveClientDocuments({}, { host: "client.test" });
  const user = await kernel.admin.createUser({ name: "Ida" });
  userId = user.id;
  const scopes = ["page.read", "page.write", "artifact.write"] as const;
  person = (await kernel.admin.createToken({ userId: user.id, holder: "person", scopes: [...scopes] })).token;
  reader = (await kernel.admin.createToken({ userId: user.id, holder: "person", scopes: ["page.read"] })).token;
  agent = (await kernel.admin.createToken({ userId: user.id, holder: "agent", scopes: ["page.read"] })).token;
  const oauth: OAuthServerSettings = {
    issuer: "http://panel.test",
    resources: [RESOURCE],
    ...OAUTH_DEFAULTS,
    // The test server's name resolves to loopback, which only the development switch lets the panel fetch.
    clientDocuments: new ClientDocuments({
      allowLoopback: true,
      ca: TEST_CA,
      resolveHost: async () => [{ address: "127.0.0.1", family: 4 }],
    }),
  };
  settings = { idempotencyTtlMs: 3_600_000, oauth };
});
afterAll(async () => {
  await documents?.close();
  await kernel?.close();
});

const caller = (authorization: string | null, with_: ToolsSettings = settings) =>
  createOAuthCaller(createToolsContext({ kernel, authorization, door: "panel", settings: with_ }));

const count = async (table: string) => (await kernel.admin.tableSnapshot())[table]!.length;

function pkce() {
  const verifier = randomBytes(32).toString("base64url");
  return { verifier, challenge: s256Challenge(verifier) };
}

async function registered() {
  const outcome = await caller(null).register({ client_name: "Hermes Agent", redirect_uris: [REDIRECT] });
  if (!outcome.ok) throw new Error(outcome.description);
  return outcome.client.clientId;
}

describe("the OAuth procedures", () => {
  it("answer unavailable where the process is no authorization server (the bridge, the CLI)", async () => {
    const off = caller(person, { idempotencyTtlMs: 3_600_000 });
    await expect(off.register({ redirect_uris: [REDIRECT] })).rejects.toMatchObject({
      cause: { code: "mnote_tool_unavailable" },
    });
    await expect(off.token({ grantType: "authorization_code" })).rejects.toMatchObject({
      cause: { code: "mnote_tool_unavailable" },
    });
  });

  it("are no procedures of the panel's /api/trpc router: each endpoint has one entrance (issue 31)", () => {
    const served = Object.keys(appRouter._def.procedures);
    expect(served.filter((path) => path.startsWith("oauth.") || path.startsWith("panel.oauth."))).toEqual([]);
  });

  it("let no agent consent for anyone: the consent takes a person's session", async () => {
    await expect(caller(agent).consent.open({ clientId: "x" })).rejects.toMatchObject({
      cause: { code: "mnote_tool_permission_denied" },
    });
    await expect(caller(null).consent.decide({ approve: true })).rejects.toMatchObject({
      cause: { code: "mnote_tool_unauthenticated" },
    });
  });

  it("never answer a bad request with somewhere to send the browser, signed in or out (RFC 9700 §4.11.2)", async () => {
    const clientId = await registered();
    const base = { clientId, redirectUri: REDIRECT, state: "s1", responseType: "code" };
    const s256 = { codeChallenge: pkce().challenge, codeChallengeMethod: "S256" };
    const cases: Array<[Record<string, string | undefined>, string]> = [
      [{ responseType: "token", ...s256 }, "unsupported_response_type"],
      [{ codeChallenge: "x".repeat(43), codeChallengeMethod: "plain" }, "invalid_request"],
      [{}, "invalid_request"],
      [{ ...s256, scope: "admin" }, "invalid_scope"],
      [{ ...s256, resource: "http://127.0.0.1:1/mcp" }, "invalid_target"],
      [{ ...s256, redirectUri: "https://evil.example/phish" }, "invalid_request"],
      [{ ...s256, clientId: "oac_nobody" }, "invalid_client"],
    ];
    const before = await count("oauth_requests");
    for (const [change, error] of cases) {
      for (const answer of [
        await caller(null).authorize({ ...base, ...change }),
        await caller(person).consent.open({ ...base, ...change }),
      ]) {
        expect(answer).toMatchObject({ ok: false, error });
        expect(JSON.stringify(answer)).not.toMatch(/evil\.example|127\.0\.0\.1:27890/);
      }
    }
    // A person with page.read asking for page.write is told so on the page too.
    expect(await caller(reader).consent.open({ ...base, ...s256, scope: "page.write" })).toMatchObject({
      ok: false,
      error: "invalid_scope",
    });
    expect(await count("oauth_requests")).toBe(before);
  });
});

describe("a client known by its metadata document (CIMD)", () => {
  it("connects as Hermes 0.21 does: consent, a code with iss, tokens under its name, refresh without a fetch", async () => {
    const path = "/hermes-agent/docs/oauth/client-metadata.json";
    const clientId = documents.url(path);
    documents.set(path, { body: hermesClientDocument(clientId), headers: { "cache-control": "max-age=600" } });
    const { verifier, challenge } = pkce();
    const request = {
      responseType: "code",
      clientId,
      redirectUri: REDIRECT,
      codeChallenge: challenge,
      codeChallengeMethod: "S256",
      state: "hermes-state",
      resource: RESOURCE,
      scope: "page.read page.write artifact.write",
    };
    expect(await caller(null).authorize(request)).toEqual({
      ok: true,
      client: { id: clientId, name: "Hermes Agent", kind: "document", redirectUri: REDIRECT },
    });
    const consent = await caller(person).consent.open(request);
    if (!consent.ok) throw new Error(consent.description);
    const decision = await caller(person).consent.decide({ requestSecret: consent.requestSecret, approve: true });
    if (!decision.ok) throw new Error(decision.refusal);
    const back = new URL(decision.redirectTo);
    expect(`${back.origin}${back.pathname}`).toBe(REDIRECT);
    expect(back.searchParams.get("iss")).toBe("http://panel.test");
    expect(back.searchParams.get("state")).toBe("hermes-state");

    const tokens = await caller(null).token({
      grantType: "authorization_code",
      code: back.searchParams.get("code")!,
      codeVerifier: verifier,
      redirectUri: REDIRECT,
      clientId,
      resource: RESOURCE,
    });
    if (!tokens.ok) throw new Error(tokens.description);
    const listed = await kernel.admin.listTokens(userId);
    expect(listed.find((token) => token.id === tokens.tokens.tokenId)?.label).toBe("Hermes Agent (OAuth)");
    const fetches = documents.requests.length;
    const refreshed = await caller(null).token({
      grantType: "refresh_token",
      refreshToken: tokens.tokens.refreshToken,
      clientId,
    });
    expect(refreshed).toMatchObject({ ok: true, tokens: { tokenId: tokens.tokens.tokenId } });
    expect(documents.requests.length).toBe(fetches);
    // Another client (any other client_id) cannot refresh this grant.
    expect(
      await caller(null).token({
        grantType: "refresh_token",
        refreshToken: refreshed.ok ? refreshed.tokens.refreshToken : "",
        clientId: documents.url("/someone/else.json"),
      }),
    ).toMatchObject({ ok: false, error: "invalid_grant" });
  });

  it("is refused where the panel reads no documents, and when its document does not list the redirect URI", async () => {
    const path = "/strict/client.json";
    const clientId = documents.url(path);
    documents.set(path, { body: hermesClientDocument(clientId, [27899]) });
    const request = {
      responseType: "code",
      clientId,
      redirectUri: REDIRECT,
      codeChallenge: pkce().challenge,
      codeChallengeMethod: "S256",
    };
    expect(await caller(null).authorize(request)).toMatchObject({
      ok: false,
      error: "invalid_request",
      description: "redirect_uri is not one the client's metadata document names",
    });
    const without = { ...settings, oauth: { ...settings.oauth!, clientDocuments: null } };
    expect(await caller(null, without).authorize(request)).toMatchObject({ ok: false, error: "invalid_client" });
  });
});
