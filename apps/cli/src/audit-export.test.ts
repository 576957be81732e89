import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { runCli } from "./test-support";

const mnote = (dir: string, argv: string[], stdin?: string) =>
  runCli(dir, argv, { databaseUrl: `file:${join(dir, "db", "mnote.db")}`, stdin });

const lines = (stdout: string) =>
  stdout
    .trim()
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { id: number; toolName: string; actorIsAgent: boolean });

describe("mnote audit export", () => {
  const dir = mkdtempSync(join(tmpdir(), "mnote-cli-export-"));
  let workspace: string;

  beforeAll(async () => {
    await mnote(dir, ["init"]);
    const owner = (await mnote(dir, ["admin", "user", "create", "--name", "Olga"])).json.id as string;
    workspace = (await mnote(dir, ["admin", "workspace", "create", "--name", "Ops", "--owner", owner])).json
      .id as string;
    // Operator changes are audited too: a few records in this workspace.
    for (const name of ["Runbook", "Oncall", "Postmortem"])
      await mnote(dir, ["admin", "page", "create", "--workspace", workspace, "--title", name, "--created-by", owner]);
  }, 120_000);

  it("writes one JSON record a line, and with a cursor file resumes after the last one it wrote", async () => {
    const range = ["--since", "2000-01-01", "--until", "2999-01-01"];
    const all = await mnote(dir, ["audit", "export", ...range]);
    expect(all.code).toBe(0);
    const records = lines(all.stdout);
    expect(records.length).toBeGreaterThanOrEqual(4);
    expect(records.map((r) => r.id)).toEqual([...records.map((r) => r.id)].sort((a, b) => a - b));
    expect(records[0]).toHaveProperty("actorIsAgent", false);

    const cursorFile = join(dir, "export.cursor");
    const first = await mnote(dir, ["audit", "export", ...range, "--page-size", "2", "--cursor-file", cursorFile]);
    expect(lines(first.stdout).map((r) => r.id)).toEqual(records.map((r) => r.id));
    expect(readFileSync(cursorFile, "utf8").trim()).toBe(String(records.at(-1)!.id));
    // Run again: nothing new since, nothing repeated.
    expect(lines((await mnote(dir, ["audit", "export", ...range, "--cursor-file", cursorFile])).stdout)).toEqual([]);
    // An explicit cursor continues after it.
    const rest = await mnote(dir, ["audit", "export", ...range, "--cursor", String(records[1]!.id)]);
    expect(lines(rest.stdout).map((r) => r.id)).toEqual(records.slice(2).map((r) => r.id));
    // The workspace's records only.
    const mine = lines((await mnote(dir, ["audit", "export", ...range, "--workspace", workspace])).stdout);
    expect(mine.length).toBeGreaterThan(0);
    expect(mine.length).toBeLessThanOrEqual(records.length);
  }, 120_000);

  it("refuses a bad range or an unknown flag as a usage error, writing no cursor", async () => {
    const cursorFile = join(dir, "bad.cursor");
    const backwards = await mnote(dir, [
      "audit",
      "export",
      "--since",
      "2026-02-01",
      "--until",
      "2026-01-01",
      "--cursor-file",
      cursorFile,
    ]);
    expect(backwards.code).toBe(2);
    expect(backwards.json.error).toMatch(/--since must be before --until/);
    expect(existsSync(cursorFile)).toBe(false);
    const unknown = await mnote(dir, [
      "audit",
      "export",
      "--since",
      "2026-01-01",
      "--until",
      "2026-02-01",
      "--from",
      "x",
    ]);
    expect(unknown.code).toBe(2);
    expect((await mnote(dir, ["audit", "export", "--since", "2026-01-01"])).code).toBe(2);
  }, 120_000);
});
