import { openKernel, type SqlKernel } from "@mnote/kernel";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCaller } from "../../root";
import { createToolsContext, type ToolsSettings } from "../../context";
import { OAUTH_DEFAULTS, parseScopes, redirectUriProblem, resourceFor } from "./rules";

/** The authorization server's procedures without HTTP (the panel's handlers are tested in apps/web). */
const SETTINGS: ToolsSettings = {
  idempotencyTtlMs: 3_600_000,
  oauth: { issuer: "http://panel.test", resources: ["http://127.0.0.1:4100/mcp"], ...OAUTH_DEFAULTS },
};

let kernel: SqlKernel;
let person: string;
let agent: string;
beforeAll(async () => {
  kernel = await openKernel(":memory:");
  const user = await kernel.admin.createUser({ name: "Ida" });
  person = (await kernel.admin.createToken({ userId: user.id, holder: "person", scopes: ["page.read"] })).token;
  agent = (await kernel.admin.createToken({ userId: user.id, holder: "agent", scopes: ["page.read"] })).token;
});
afterAll(async () => kernel?.close());

const caller = (authorization: string | null, settings: ToolsSettings = SETTINGS) =>
  createCaller(createToolsContext({ kernel, authorization, door: "panel", settings }));

describe("the OAuth procedures", () => {
  it("answer unavailable where the process is no authorization server (the bridge, the CLI)", async () => {
    const off = caller(person, { idempotencyTtlMs: 3_600_000 });
    await expect(off.oauth.register({ redirectUris: ["http://127.0.0.1:1/cb"] })).rejects.toMatchObject({
      cause: { code: "mnote_tool_unavailable" },
    });
    await expect(off.oauth.token({ grantType: "authorization_code" })).rejects.toMatchObject({
      cause: { code: "mnote_tool_unavailable" },
    });
  });

  it("let no agent consent for anyone: panel.oauth.* takes a person's session", async () => {
    await expect(caller(agent).panel.oauth.open({ clientId: "x" })).rejects.toMatchObject({
      cause: { code: "mnote_tool_permission_denied" },
    });
    await expect(caller(null).panel.oauth.decide({ approve: true })).rejects.toMatchObject({
      cause: { code: "mnote_tool_unauthenticated" },
    });
  });

  it("grant no more than the session holds: a person with page.read asking for page.write gets invalid_scope", async () => {
    const registered = await caller(null).oauth.register({ redirectUris: ["http://127.0.0.1:1/cb"] });
    if (!registered.ok) throw new Error(registered.description);
    const outcome = await caller(person).panel.oauth.open({
      responseType: "code",
      clientId: registered.client.clientId,
      codeChallenge: "a".repeat(43),
      codeChallengeMethod: "S256",
      scope: "page.write",
    });
    expect(outcome).toMatchObject({ kind: "redirect", error: "invalid_scope" });
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
      "https://u:p@a.example.com/",
      "cb",
      "javascript:alert(1)",
    ])
      expect(redirectUriProblem(bad)).not.toBeNull();
  });

  it("scopes are mnote capabilities; resources are the configured ones, compared as URLs", () => {
    expect(parseScopes("page.read  page.read page.write")).toEqual(["page.read", "page.write"]);
    expect(parseScopes("openid")).toBeNull();
    expect(resourceFor(SETTINGS.oauth!, undefined)).toBe("http://127.0.0.1:4100/mcp");
    expect(resourceFor(SETTINGS.oauth!, "HTTP://127.0.0.1:4100/mcp")).toBe("http://127.0.0.1:4100/mcp");
    expect(resourceFor(SETTINGS.oauth!, "http://127.0.0.1:4101/mcp")).toBeNull();
  });
});
