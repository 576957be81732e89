import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEFAULT_DATABASE_URL } from "@mnote/kernel";
import { DEFAULT_SETTINGS } from "@mnote/tools";
import { afterAll, describe, expect, it } from "vitest";
import { readCliConfig } from "./config";
import { main } from "./main";

const dir = mkdtempSync(join(tmpdir(), "mnote-cli-config-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("the CLI's configuration", () => {
  it("defaults: the kernel's database URL, the router's settings, no token", () => {
    expect(readCliConfig({})).toEqual({
      database: { url: DEFAULT_DATABASE_URL, options: { postgres: {} } },
      tools: DEFAULT_SETTINGS,
      token: undefined,
      demoCredentials: undefined,
    });
  });

  it("a bad value stops every command before it opens the database: exit 2, JSON naming each variable", async () => {
    const databaseFile = join(dir, "never.db");
    let stdout = "";
    const code = await main(["admin", "user", "list"], {
      stdin: async () => "",
      env: {
        MNOTE_DATABASE_URL: `file:${databaseFile}`,
        MNOTE_IDEMPOTENCY_TTL_HOURS: "abc",
        MNOTE_PG_POOL_MAX: "many",
      },
      stdout: (text) => void (stdout += text),
      stderr: () => undefined,
    });
    expect(code).toBe(2);
    const answer = JSON.parse(stdout) as { error: string; problems: string[] };
    expect(answer.error).toContain("invalid configuration");
    expect(answer.problems).toEqual([
      expect.stringContaining("MNOTE_PG_POOL_MAX must be an integer"),
      expect.stringContaining("MNOTE_IDEMPOTENCY_TTL_HOURS must be a number"),
    ]);
    expect(existsSync(databaseFile)).toBe(false);
  });
});
