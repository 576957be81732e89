import { describe, expect, it } from "vitest";
import { ConfigReader } from "@mnote/process";
import { DEFAULT_SETTINGS, toolsSettingsFromEnv } from "./context";

describe("the router's settings", () => {
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

  it("MNOTE_READ_CACHE_MB: default 16 MB, 0 turns the read cache off, a bad value is a problem", () => {
    const read = (value: string) => {
      const config = new ConfigReader({ MNOTE_READ_CACHE_MB: value });
      return { settings: toolsSettingsFromEnv(config), problems: config.problems };
    };
    expect(DEFAULT_SETTINGS.readCacheBytes).toBe(16 * 1024 * 1024);
    expect(read("0").settings.readCacheBytes).toBe(0);
    expect(read("64").settings.readCacheBytes).toBe(64 * 1024 * 1024);
    for (const bad of ["abc", "-1", "5000"]) {
      expect(read(bad).problems, bad).toEqual([expect.stringContaining("MNOTE_READ_CACHE_MB must be a number")]);
    }
  });
});
