import { ClientDocuments } from "@mnote/oauth";
import { ConfigError } from "@mnote/process";
import { describe, expect, it } from "vitest";
import { readPanelEnv } from "./env";

const KEY = "k".repeat(16);
const problemsOf = (env: Record<string, string>) => {
  try {
    readPanelEnv(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
};

describe("panel configuration: connecting Hermes", () => {
  it("is not connected without either variable", () => {
    expect(readPanelEnv({}).hermes).toBeNull();
    expect(readPanelEnv({ MNOTE_HERMES_URL: " ", MNOTE_HERMES_API_KEY: "" }).hermes).toBeNull();
  });

  it("takes an http(s) URL (without its trailing slash) and a key of 16 characters or more", () => {
    expect(readPanelEnv({ MNOTE_HERMES_URL: "http://127.0.0.1:8642/", MNOTE_HERMES_API_KEY: KEY }).hermes).toEqual({
      url: "http://127.0.0.1:8642",
      apiKey: KEY,
      allowedToolsets: ["mnote"],
    });
    expect(
      readPanelEnv({ MNOTE_HERMES_URL: "https://hermes.example.com/p/work", MNOTE_HERMES_API_KEY: KEY }).hermes?.url,
    ).toBe("https://hermes.example.com/p/work");
  });

  it("allows only the mnote toolset unless MNOTE_HERMES_ALLOWED_TOOLSETS names others, and refuses a bad name", () => {
    const hermes = { MNOTE_HERMES_URL: "http://127.0.0.1:8642", MNOTE_HERMES_API_KEY: KEY };
    expect(readPanelEnv({ ...hermes, MNOTE_HERMES_ALLOWED_TOOLSETS: "mnote, web" }).hermes?.allowedToolsets).toEqual([
      "mnote",
      "web",
    ]);
    expect(problemsOf({ ...hermes, MNOTE_HERMES_ALLOWED_TOOLSETS: "mnote,rm -rf" })).toEqual([
      expect.stringContaining("MNOTE_HERMES_ALLOWED_TOOLSETS"),
    ]);
  });

  it("keeps an ended run's lines 60 s unless told, from 0 to 600 s (issue 38)", () => {
    expect(readPanelEnv({}).askLinesGraceMs).toBe(60_000);
    expect(readPanelEnv({ MNOTE_ASK_LINES_GRACE_SECONDS: "0" }).askLinesGraceMs).toBe(0);
    expect(readPanelEnv({ MNOTE_ASK_LINES_GRACE_SECONDS: "300" }).askLinesGraceMs).toBe(300_000);
    expect(problemsOf({ MNOTE_ASK_LINES_GRACE_SECONDS: "3600" })).toEqual([
      expect.stringContaining("MNOTE_ASK_LINES_GRACE_SECONDS must be an integer from 0 to 600"),
    ]);
  });

  it("refuses half a connection, naming the missing variable", () => {
    expect(problemsOf({ MNOTE_HERMES_URL: "http://127.0.0.1:8642" })).toEqual([
      expect.stringContaining("MNOTE_HERMES_API_KEY is not"),
    ]);
    expect(problemsOf({ MNOTE_HERMES_API_KEY: KEY })).toEqual([expect.stringContaining("MNOTE_HERMES_URL is not")]);
  });

  it("refuses a URL that does not parse or is not http(s), and a short key, all in one message", () => {
    expect(problemsOf({ MNOTE_HERMES_URL: "not a url", MNOTE_HERMES_API_KEY: KEY })).toEqual([
      expect.stringContaining("MNOTE_HERMES_URL"),
    ]);
    expect(problemsOf({ MNOTE_HERMES_URL: "ftp://127.0.0.1:8642", MNOTE_HERMES_API_KEY: KEY })).toHaveLength(1);
    expect(problemsOf({ MNOTE_HERMES_URL: "http://user:pw@127.0.0.1:8642", MNOTE_HERMES_API_KEY: KEY })).toHaveLength(
      1,
    );
    const both = problemsOf({
      MNOTE_HERMES_URL: "127.0.0.1:8642",
      MNOTE_HERMES_API_KEY: "short",
      MNOTE_SECURE_COOKIES: "yes",
    });
    expect(both).toHaveLength(3);
    expect(both.join("\n")).toContain("MNOTE_HERMES_API_KEY is 5 characters");
    // The key never appears in a message.
    expect(problemsOf({ MNOTE_HERMES_URL: "x", MNOTE_HERMES_API_KEY: "secretkey" }).join("\n")).not.toContain(
      "secretkey",
    );
  });
});

describe("panel configuration: sign-in through an identity provider", () => {
  it("is checked with the rest at start", () => {
    expect(readPanelEnv({}).oidc).toBeNull();
    expect(
      readPanelEnv({
        MNOTE_OIDC_ISSUER: "https://login.example.com",
        MNOTE_OIDC_CLIENT_ID: "panel",
        MNOTE_OIDC_CLIENT_SECRET: "secret",
        MNOTE_OIDC_REDIRECT_URI: "https://panel.example.com/api/auth/oidc/callback",
      }).oidc,
    ).toMatchObject({ issuer: "https://login.example.com", clientId: "panel", autoProvision: false });
    const problems = problemsOf({ MNOTE_OIDC_ISSUER: "https://login.example.com", MNOTE_SECURE_COOKIES: "yes" });
    expect(problems).toHaveLength(2);
    expect(problems.join("\n")).toContain("MNOTE_OIDC_CLIENT_ID, MNOTE_OIDC_CLIENT_SECRET not set");
  });

  it("takes the redirect URI from configuration only: MNOTE_OIDC_REDIRECT_URI, else the public origin, else no start", () => {
    const idp = {
      MNOTE_OIDC_ISSUER: "https://login.example.com",
      MNOTE_OIDC_CLIENT_ID: "panel",
      MNOTE_OIDC_CLIENT_SECRET: "secret",
    };
    const redirect = "https://panel.example.com/api/auth/oidc/callback";
    expect(readPanelEnv({ ...idp, MNOTE_OIDC_REDIRECT_URI: redirect }).oidc?.redirectUri).toBe(redirect);
    expect(
      readPanelEnv({
        ...idp,
        MNOTE_OAUTH_ISSUER: "https://panel.example.com",
        MNOTE_OAUTH_RESOURCES: "https://bridge.example.com/mcp",
      }).oidc?.redirectUri,
    ).toBe(redirect);
    // Neither: the panel does not start, rather than build the callback from whatever Host a request names.
    expect(problemsOf(idp)).toEqual([expect.stringContaining("MNOTE_OIDC_REDIRECT_URI not set")]);
  });
});

describe("panel configuration: the OAuth authorization server (decision 0027)", () => {
  it("is off without either variable and on with both", () => {
    expect(readPanelEnv({}).tools.oauth).toBeNull();
    expect(
      readPanelEnv({
        MNOTE_OAUTH_ISSUER: "https://panel.example.com/",
        MNOTE_OAUTH_RESOURCES: "https://b.example.com/mcp",
      }).tools.oauth,
    ).toMatchObject({ issuer: "https://panel.example.com", resources: ["https://b.example.com/mcp"] });
  });

  it("reads clients' metadata documents unless told not to; from loopback only when told so (development)", async () => {
    const both = {
      MNOTE_OAUTH_ISSUER: "https://panel.example.com",
      MNOTE_OAUTH_RESOURCES: "https://b.example.com/mcp",
    };
    expect(readPanelEnv(both).tools.oauth?.clientDocuments).toBeInstanceOf(ClientDocuments);
    expect(readPanelEnv({ ...both, MNOTE_OAUTH_CLIENT_DOCUMENTS: "off" }).tools.oauth?.clientDocuments).toBeNull();
    const loopbackUrl = "http://127.0.0.1:1/client.json";
    const production = readPanelEnv(both).tools.oauth!.clientDocuments!;
    expect(await production.read(loopbackUrl)).toMatchObject({ description: expect.stringContaining("https") });
    const development = readPanelEnv({ ...both, MNOTE_OAUTH_CLIENT_DOCUMENTS: "loopback" }).tools.oauth!;
    // Allowed to try: port 1 answers nothing, so the refusal is about reaching it, not about the address.
    expect(await development.clientDocuments!.read(loopbackUrl)).toMatchObject({
      description: expect.stringContaining("could not be reached"),
    });
    expect(problemsOf({ ...both, MNOTE_OAUTH_CLIENT_DOCUMENTS: "yes" })).toEqual([
      expect.stringContaining("MNOTE_OAUTH_CLIENT_DOCUMENTS"),
    ]);
  });

  it("refuses half a configuration and values that are not URLs or an origin", () => {
    expect(problemsOf({ MNOTE_OAUTH_ISSUER: "https://panel.example.com" })).toEqual([
      expect.stringContaining("MNOTE_OAUTH_RESOURCES"),
    ]);
    expect(
      problemsOf({ MNOTE_OAUTH_ISSUER: "https://panel.example.com/sub", MNOTE_OAUTH_RESOURCES: "not a url" }),
    ).toEqual([expect.stringContaining("MNOTE_OAUTH_ISSUER"), expect.stringContaining("MNOTE_OAUTH_RESOURCES")]);
  });
});
