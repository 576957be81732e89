import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { copyDatabase, openDriver, type SqlDriver } from "@mnote/kernel";
import { required, UsageError } from "../args";
import type { Command } from "../command";

/** The URL with any password replaced, for output. */
function redact(url: string): string {
  return url.replace(/^([a-z]+:\/\/[^:@/]+):[^@/]*@/i, "$1:***@");
}

/** A copy must read an existing database: opening a mistyped SQLite path would create an empty one. */
function assertSourceExists(url: string) {
  for (const prefix of ["file:", "pglite:"]) {
    if (!url.startsWith(prefix)) continue;
    const path = url.slice(prefix.length);
    if (path === "" || path === ":memory:" || path === "memory")
      throw new UsageError("--from must name a database that exists");
    if (!existsSync(resolve(path))) throw new UsageError(`--from: no database at ${resolve(path)}`);
  }
}

export const migrateDataCommand: Command = {
  words: ["migrate-data"],
  usage:
    "mnote migrate-data --from URL --to URL   (copy every row, e.g. file:./.mnote/mnote.db to postgres://…; the target must be empty)",
  help: "Copies every row from one database to another (e.g. SQLite to PostgreSQL); the target must be empty.",
  async run({ args }) {
    const from = required(args, "from");
    const to = required(args, "to");
    if (from === to) throw new UsageError("--from and --to name the same database");
    assertSourceExists(from);
    const opened: SqlDriver[] = [];
    try {
      const source = await openDriver(from);
      opened.push(source);
      const target = await openDriver(to);
      opened.push(target);
      const report = await copyDatabase(source, target);
      return {
        output: {
          ok: true,
          from: redact(from),
          to: redact(to),
          schemaVersion: report.schemaVersion,
          rows: report.rows,
          tables: report.tables,
        },
      };
    } finally {
      for (const driver of opened.reverse()) await driver.close();
    }
  },
};
