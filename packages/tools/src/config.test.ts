import { describe, expect, it } from "vitest";
import { DEFAULT_DATABASE_URL } from "@mnote/kernel";
import { ConfigError, ConfigReader, databaseSettingsFromEnv } from "./config";
import { DEFAULT_SETTINGS, toolsSettingsFromEnv } from "./context";

describe("configuration", () => {
  it("MNOTE_IDEMPOTENCY_TTL_HOURS: default 24 h, a valid value is used, a bad one is a problem", () => {
    const read = (value?: string) => {
      const config = new ConfigReader(value === undefined ? {} : { MNOTE_IDEMPOTENCY_TTL_HOURS: value });
      const settings = toolsSettingsFromEnv(config);
      return { settings, problems: config.problems };
    };
    expect(read().settings).toEqual(DEFAULT_SETTINGS);
    expect(read("48").settings.idempotencyTtlMs).toBe(48 * 3_600_000);
    for (const bad of ["abc", "0", "-1", "NaN", "Infinity", "1e9"]) {
      expect(read(bad).problems, bad).toEqual([
        expect.stringContaining("MNOTE_IDEMPOTENCY_TTL_HOURS must be a number"),
      ]);
    }
  });

  it("done() names every problem at once and quotes values only in short", () => {
    const config = new ConfigReader({ A: "x".repeat(1000), B: "loud" });
    config.number("A", { min: 0, max: 1 });
    config.oneOf("B", ["info", "debug"]);
    expect(() => config.done()).toThrow(ConfigError);
    try {
      config.done();
    } catch (error) {
      expect((error as ConfigError).problems).toHaveLength(2);
      expect((error as Error).message.length).toBeLessThan(300);
    }
  });

  it("the database: MNOTE_DATABASE_URL with the kernel's default, PostgreSQL pool and timeout checked", () => {
    const read = (env: Record<string, string>, fallback?: string) => {
      const config = new ConfigReader(env);
      return { settings: databaseSettingsFromEnv(config, fallback), problems: config.problems };
    };
    expect(read({})).toEqual({ settings: { url: DEFAULT_DATABASE_URL, options: { postgres: {} } }, problems: [] });
    expect(read({}, "file:/srv/mnote.db").settings.url).toBe("file:/srv/mnote.db");
    expect(
      read({ MNOTE_DATABASE_URL: " postgres://db/mnote ", MNOTE_PG_POOL_MAX: "4", MNOTE_PG_STATEMENT_TIMEOUT_MS: "0" })
        .settings,
    ).toEqual({
      url: "postgres://db/mnote",
      options: { postgres: { poolMax: 4, statementTimeoutMs: 0 } },
    });
    const bad = read({ MNOTE_PG_POOL_MAX: "0", MNOTE_PG_STATEMENT_TIMEOUT_MS: "soon" });
    expect(bad.problems).toEqual([
      expect.stringContaining("MNOTE_PG_POOL_MAX must be an integer from 1 to 1000"),
      expect.stringContaining("MNOTE_PG_STATEMENT_TIMEOUT_MS must be an integer"),
    ]);
  });
});
