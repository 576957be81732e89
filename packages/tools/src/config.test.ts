import { describe, expect, it } from "vitest";
import { ConfigError, ConfigReader } from "./config";
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
      expect(read(bad).problems, bad).toEqual([expect.stringContaining("MNOTE_IDEMPOTENCY_TTL_HOURS must be a number")]);
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
});
