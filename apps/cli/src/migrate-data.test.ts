import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openPostgresDriver } from "@mnote/kernel";
import { freshSchemaName, postgresAvailability } from "@mnote/kernel/conformance";
import { beforeAll, describe, expect, it } from "vitest";
import { runCli } from "./test-support";

const server = postgresAvailability();

/** The CLI with `source.db` in the suite's folder as its default database. */
const mnote = (dir: string, argv: string[]) => runCli(dir, argv, { databaseUrl: "file:./source.db" });

describe("mnote migrate-data", () => {
  const dir = mkdtempSync(join(tmpdir(), "mnote-migrate-data-"));

  beforeAll(async () => {
    const owner = (await mnote(dir, ["admin", "user", "create", "--name", "Olga"])).json.id;
    const ws = (await mnote(dir, ["admin", "workspace", "create", "--name", "Ops", "--owner", owner])).json.id;
    expect(
      (await mnote(dir, ["admin", "page", "create", "--workspace", ws, "--title", "Runbook", "--created-by", owner]))
        .code,
    ).toBe(0);
  }, 60_000);

  it("copies a SQLite database into an empty one and reports the rows", async () => {
    const out = await mnote(dir, ["migrate-data", "--from", "file:./source.db", "--to", "file:./copy.db"]);
    expect(out.code).toBe(0);
    expect(out.json).toMatchObject({ ok: true, tables: { users: 1, workspaces: 1, members: 1, pages: 1 } });
  }, 30_000);

  it("refuses a target that has data", async () => {
    const out = await mnote(dir, ["migrate-data", "--from", "file:./source.db", "--to", "file:./copy.db"]);
    expect(out.code).toBe(1);
    expect(out.json.error).toMatch(/not empty/);
  }, 30_000);

  it("refuses a source that does not exist instead of copying an empty database", async () => {
    const out = await mnote(dir, ["migrate-data", "--from", "file:./typo.db", "--to", "file:./other.db"]);
    expect(out.code).toBe(2);
    expect(out.json.error).toMatch(/no database at/);
  }, 30_000);

  it.skipIf(!server.available)(
    "copies a SQLite database to PostgreSQL",
    async () => {
      const url = new URL(server.url);
      url.searchParams.set("schema", freshSchemaName("mnote_cli"));
      const out = await mnote(dir, ["migrate-data", "--from", "file:./source.db", "--to", url.toString()]);
      const check = await openPostgresDriver(url.toString(), { dropSchemaOnClose: true });
      try {
        expect(out.json).toMatchObject({ ok: true, tables: { users: 1, pages: 1 } });
        expect(await check.get(`SELECT COUNT(*) AS n FROM pages`)).toEqual({ n: 1 });
      } finally {
        await check.close();
      }
    },
    30_000,
  );
});
