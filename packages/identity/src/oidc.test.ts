import { DISPLAY_NAME_MAX } from "@mnote/contract";
import { openSqliteDriver, SqlKernel } from "@mnote/kernel";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodeFlow, encodeFlow, OidcRelyingParty, type SignInFlow, SignInRefused } from "./oidc";
import { closePanelSession, openPanelSession, personForIdentity } from "./people";
import { signInThroughIdp, startTestIdp, type TestIdp } from "./test-idp";

/** The relying party against a real OpenID provider (oidc-provider) on a loopback port: every check, both ways. */
const CALLBACK = "http://127.0.0.1:9/api/auth/oidc/callback";

let idp: TestIdp;
let rp: OidcRelyingParty;

beforeAll(async () => {
  idp = await startTestIdp({
    redirectUris: [CALLBACK],
    people: {
      ada: { email: "Ada@Example.com", name: "Ada Lovelace" },
      eve: { email: "eve@example.com", emailVerified: false },
      nomail: { name: "No Mail" },
      newcomer: { email: "new@example.com", name: "New Comer" },
      // Issue 31: a KELVIN SIGN look-alike of kate, a non-ASCII address, and a name claim no one should keep.
      kelvin: { email: "\u212Aate@example.com", name: "Not Kate" },
      jurgen: { email: "j\u00FCrgen@example.com", name: "J\u00FCrgen" },
      loud: { email: "loud@example.com", name: `\u0000Mal\u202Eory\n\u001b[31m${"x".repeat(200_000)}` },
    },
  });
  rp = new OidcRelyingParty({
    issuer: idp.issuer,
    clientId: idp.clientId,
    clientSecret: idp.clientSecret,
    autoProvision: false,
  });
});
afterAll(() => idp.stop());

/** One sign-in up to the callback: the flow the panel kept and the query the provider sent back. */
async function callbackFor(login: string): Promise<{ flow: SignInFlow; query: URLSearchParams; url: URL }> {
  const { url, flow } = await rp.start(CALLBACK);
  const back = await signInThroughIdp(url, login, CALLBACK);
  return { flow, query: back.searchParams, url };
}

const refusal = async (promise: Promise<unknown>) => {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(SignInRefused);
  return error as SignInRefused;
};

describe("OpenID Connect sign-in", () => {
  it("asks for the code with PKCE S256, state and nonce, and answers the verified person", async () => {
    const { flow, query, url } = await callbackFor("ada");
    expect(url.searchParams.get("code_challenge_method")).toBe("S256");
    expect(url.searchParams.get("code_challenge")).toMatch(/^[\w-]{43}$/);
    expect(url.searchParams.get("state")).toBe(flow.state);
    expect(url.searchParams.get("nonce")).toBe(flow.nonce);
    expect(url.searchParams.get("code_verifier")).toBeNull();
    expect(await rp.finish(flow, query)).toEqual({
      issuer: idp.issuer,
      subject: "ada",
      email: "Ada@Example.com",
      emailVerified: true,
      name: "Ada Lovelace",
    });
  });

  it("refuses a callback with no flow, another flow's state, or one already used", async () => {
    const { flow, query } = await callbackFor("ada");
    expect((await refusal(rp.finish(null, query))).reason).toBe("state");
    expect((await refusal(rp.finish({ ...flow, state: "another-sign-in" }, query))).reason).toBe("state");
    await rp.finish(flow, query);
    // The same callback again: the provider has spent the code (invalid_grant).
    const replay = await refusal(rp.finish(flow, query));
    expect(replay.reason).toBe("token");
    expect(replay.message).toMatch(/invalid_grant/);
  });

  it("refuses a PKCE verifier that does not match the challenge", async () => {
    const { flow, query } = await callbackFor("ada");
    const other = (await rp.start(CALLBACK)).flow.codeVerifier;
    const refused = await refusal(rp.finish({ ...flow, codeVerifier: other }, query));
    expect(refused.reason).toBe("token");
    expect(refused.message).toMatch(/invalid_grant/);
  });

  const tampered: Array<[string, Parameters<TestIdp["tamper"]>[0], RegExp]> = [
    ["forged (signed by another key)", { foreignKey: true }, /signature/i],
    ["expired", { claims: (c) => ({ ...c, iat: c.iat! - 7200, exp: Math.floor(Date.now() / 1000) - 3600 }) }, /exp/],
    ["for another issuer", { claims: (c) => ({ ...c, iss: "https://evil.example.com" }) }, /iss/],
    ["for another client (aud)", { claims: (c) => ({ ...c, aud: "someone-else" }) }, /aud/],
    ["with another nonce", { claims: (c) => ({ ...c, nonce: "replayed-nonce" }) }, /nonce/],
  ];
  for (const [what, change, message] of tampered) {
    it(`refuses an ID token ${what}`, async () => {
      const { flow, query } = await callbackFor("ada");
      idp.tamper(change);
      const refused = await refusal(rp.finish(flow, query));
      expect(refused.reason).toBe("token");
      expect(refused.message).toMatch(message);
    });
  }

  it("passes on the provider's error (the person cancelled) as the provider's", async () => {
    const { flow } = await rp.start(CALLBACK);
    const query = new URLSearchParams({ error: "access_denied", state: flow.state, iss: idp.issuer });
    const refused = await refusal(rp.finish(flow, query));
    expect(refused.reason).toBe("provider_error");
    expect(refused.message).toMatch(/access_denied/);
  });

  it("is sent no code for a redirect URI the provider does not know", async () => {
    const { url } = await rp.start("http://127.0.0.1:9/elsewhere");
    const response = await fetch(url, { redirect: "manual" });
    expect(response.status).toBe(400);
    expect(response.headers.get("location")).toBeNull();
    expect(await response.text()).toMatch(/redirect_uri/);
  });

  it("says the provider is unreachable when it does not answer", async () => {
    const down = new OidcRelyingParty(
      { issuer: "http://127.0.0.1:9", clientId: "x", clientSecret: "y", autoProvision: false },
      { timeoutSeconds: 2 },
    );
    expect((await refusal(down.start(CALLBACK))).reason).toBe("unreachable");
  });

  it("keeps a flow in a cookie value and reads nothing else as one", () => {
    const flow = { state: "s", nonce: "n", codeVerifier: "v", redirectUri: CALLBACK };
    expect(decodeFlow(encodeFlow(flow))).toEqual(flow);
    for (const bad of [null, "", "%%%", Buffer.from("[1]").toString("base64url"), encodeFlow({ ...flow, state: "" })])
      expect(decodeFlow(bad)).toBeNull();
  });
});

describe("who the verified person is in mnote", () => {
  let kernel: SqlKernel;
  beforeAll(async () => {
    kernel = await SqlKernel.open(openSqliteDriver(":memory:"));
    await kernel.admin.createUser({ id: "user_ada", name: "Ada", email: "ada@example.com" });
    await kernel.admin.createUser({ id: "user_kate", name: "Kate", email: "kate@example.com" });
  });
  afterAll(() => kernel.close());

  const verified = async (login: string) => {
    const { flow, query } = await callbackFor(login);
    return rp.finish(flow, query);
  };

  it("finds the user by the verified email, whatever its case", async () => {
    expect(await personForIdentity(kernel, await verified("ada"), { autoProvision: false })).toMatchObject({
      ok: true,
      created: false,
      user: { id: "user_ada" },
    });
  });

  it("refuses an unverified, a missing and an unknown email, creating nothing", async () => {
    const before = await kernel.admin.tableSnapshot();
    for (const [login, reason] of [
      ["eve", "unverified_email"],
      ["nomail", "no_email"],
      ["newcomer", "unknown_email"],
    ] as const) {
      expect(await personForIdentity(kernel, await verified(login), { autoProvision: false })).toEqual({
        ok: false,
        reason,
      });
    }
    // An unverified email is refused even where newcomers are let in.
    expect(await personForIdentity(kernel, await verified("eve"), { autoProvision: true })).toEqual({
      ok: false,
      reason: "unverified_email",
    });
    expect(await kernel.admin.tableSnapshot()).toEqual(before);
  });

  it("with auto-provisioning, makes a newcomer a user in no workspace, audited under the provider", async () => {
    const outcome = await personForIdentity(kernel, await verified("newcomer"), { autoProvision: true });
    expect(outcome).toMatchObject({ ok: true, created: true, user: { name: "New Comer", email: "new@example.com" } });
    const user = (outcome as { user: { id: string } }).user;
    expect(await kernel.admin.listWorkspaces(user.id)).toEqual([]);
    const records = (await kernel.admin.tableSnapshot()).audit_log as Array<{ tool_name: string; actor_id: string }>;
    expect(records.at(-1)).toMatchObject({ tool_name: "admin.user.create", actor_id: `oidc:${idp.issuer}` });
    // The second sign-in finds the same user.
    expect(await personForIdentity(kernel, await verified("newcomer"), { autoProvision: true })).toMatchObject({
      created: false,
      user: { id: user.id },
    });
  });

  it("refuses a verified non-ASCII email (a KELVIN SIGN kate, an umlaut) as invalid_email, never a 500, creating nothing", async () => {
    const before = await kernel.admin.tableSnapshot();
    for (const login of ["kelvin", "jurgen"]) {
      for (const autoProvision of [false, true]) {
        expect(await personForIdentity(kernel, await verified(login), { autoProvision })).toEqual({
          ok: false,
          reason: "invalid_email",
        });
      }
    }
    expect(await kernel.admin.tableSnapshot()).toEqual(before);
  });

  it("keeps a provider's name claim bounded and clean: no controls, no bidi overrides, at most 100 characters", async () => {
    const identity = await verified("loud");
    expect(identity.name).toBe(`Mal ory [31m${"x".repeat(100 - "Mal ory [31m".length)}`);
    const outcome = await personForIdentity(kernel, identity, { autoProvision: true });
    expect(outcome).toMatchObject({ ok: true, created: true, user: { name: identity.name } });
    const { name } = (outcome as { user: { name: string } }).user;
    expect(Array.from(name).length).toBeLessThanOrEqual(DISPLAY_NAME_MAX);
    // eslint-disable-next-line no-control-regex -- what must not be there
    expect(name).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
  });

  it("opens a 12-hour person session and closes it at sign-out; a pasted operator token stays", async () => {
    const secret = await openPanelSession(kernel, "user_ada", "oidc");
    const [session] = await kernel.admin.listTokens("user_ada");
    expect(session).toMatchObject({ holder: "person", label: "panel sign-in (identity provider)", revokedAt: null });
    expect(Date.parse(session!.expiresAt!) - Date.now()).toBeGreaterThan(11.9 * 3600_000);
    expect(secret).toMatch(/^mnt_/);
    expect(await closePanelSession(kernel, session!)).toBe(true);
    expect((await kernel.admin.listTokens("user_ada"))[0]!.revokedAt).not.toBeNull();
    const { record } = await kernel.admin.createToken({ userId: "user_ada", holder: "person", scopes: ["page.read"] });
    expect(await closePanelSession(kernel, record)).toBe(false);
    expect((await kernel.admin.listTokens("user_ada")).find((t) => t.id === record.id)?.revokedAt).toBeNull();
  });
});
