import { ConfigError, ConfigReader } from "@mnote/process";
import { describe, expect, it } from "vitest";
import { oidcSettingsFromEnv } from "./config";

const read = (env: Record<string, string>) => {
  const config = new ConfigReader(env);
  const settings = oidcSettingsFromEnv(config);
  try {
    config.done();
  } catch (error) {
    if (error instanceof ConfigError) return { settings, problems: error.problems };
    throw error;
  }
  return { settings, problems: [] };
};
const ALL = {
  MNOTE_OIDC_ISSUER: "https://login.example.com/",
  MNOTE_OIDC_CLIENT_ID: "panel",
  MNOTE_OIDC_CLIENT_SECRET: "s",
};

describe("sign-in through an identity provider: its settings", () => {
  it("is off without them, on with all three (the issuer kept exactly as given)", () => {
    expect(read({})).toEqual({ settings: null, problems: [] });
    expect(read(ALL)).toEqual({
      settings: {
        issuer: "https://login.example.com/",
        clientId: "panel",
        clientSecret: "s",
        autoProvision: false,
        redirectUri: null,
      },
      problems: [],
    });
    expect(read({ ...ALL, MNOTE_OIDC_AUTO_PROVISION: "1" }).settings?.autoProvision).toBe(true);
    expect(read({ ...ALL, MNOTE_OIDC_ISSUER: "http://127.0.0.1:5556" }).problems).toEqual([]);
  });

  it("refuses part of them, naming what is missing, and never quotes the secret", () => {
    const { problems } = read({ MNOTE_OIDC_ISSUER: "https://login.example.com", MNOTE_OIDC_CLIENT_SECRET: "hunter2" });
    expect(problems).toEqual([expect.stringContaining("MNOTE_OIDC_CLIENT_ID not set")]);
    expect(problems.join()).not.toContain("hunter2");
    expect(read({ MNOTE_OIDC_AUTO_PROVISION: "1" }).problems).toHaveLength(1);
  });

  it("refuses an issuer that is not https (but for loopback), a bad redirect URI and a bad switch, all at once", () => {
    const { settings, problems } = read({
      ...ALL,
      MNOTE_OIDC_ISSUER: "http://login.example.com",
      MNOTE_OIDC_REDIRECT_URI: "panel/callback",
      MNOTE_OIDC_AUTO_PROVISION: "yes",
    });
    expect(settings).toBeNull();
    expect(problems).toHaveLength(3);
    expect(problems.join("\n")).toMatch(/MNOTE_OIDC_ISSUER.*not an https issuer URL/);
    expect(read({ ...ALL, MNOTE_OIDC_ISSUER: "not a url" }).problems).toHaveLength(1);
  });
});
