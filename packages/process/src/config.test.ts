import { describe, expect, it } from "vitest";
import { DEFAULT_DATABASE_URL } from "@mnote/kernel";
import { ConfigError, ConfigReader, databaseSettingsFromEnv } from "./config";

describe("configuration", () => {
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
