import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { PGlite } from "@electric-sql/pglite";
import { BUSINESS_TABLES, migrate } from "./migrations";
import type { SqlDriver } from "./sql/driver";
import { openPgliteDriver } from "./sql/pglite-driver";
import { openPostgresDriver, type PostgresOptions } from "./sql/postgres-driver";
import { type KernelOptions, SqlKernel } from "./sql-kernel";

/**
 * Databases for tests, shared by the kernel's own tests and the tools contract
 * tests (exported through `@mnote/kernel/conformance`).
 *
 * Real PostgreSQL: `MNOTE_TEST_POSTGRES_URL` (default below). A developer machine
 * without a server skips those tests with a message; in CI (`CI=true`) an
 * unreachable server is a failure, never a silent skip.
 */
export const TEST_POSTGRES_URL = process.env.MNOTE_TEST_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/test";

export function inCi(env: NodeJS.ProcessEnv = process.env): boolean {
  const value = (env.CI ?? "").trim().toLowerCase();
  return value !== "" && value !== "0" && value !== "false";
}

export interface PostgresAvailability {
  /** Run the real-PostgreSQL tests. */
  available: boolean;
  /** Why not, when not; printed once. */
  reason: string | null;
  /** The server is unreachable and this is CI: tests must fail. */
  mustFail: boolean;
  url: string;
}

let availability: PostgresAvailability | undefined;

/**
 * Probe the server once per process. Synchronous (a short child process) so test
 * files can decide `describe.skipIf(...)` while they are collected.
 */
export function postgresAvailability(): PostgresAvailability {
  if (availability) return availability;
  const url = TEST_POSTGRES_URL;
  const pgPath = createRequire(import.meta.url).resolve("pg");
  const script = `
    const pg = require(${JSON.stringify(pgPath)});
    const client = new pg.Client({ connectionString: process.env.PROBE_URL, connectionTimeoutMillis: 3000 });
    client.on("error", () => {});
    client.connect().then(() => client.query("SELECT 1")).then(() => client.end()).then(
      () => process.exit(0),
      (error) => { process.stderr.write(String(error && error.message || error)); process.exit(1); });`;
  const probe = spawnSync(process.execPath, ["-e", script], {
    env: { ...process.env, PROBE_URL: url },
    encoding: "utf8",
    timeout: 10_000,
  });
  const ok = probe.status === 0;
  const why = (probe.stderr || probe.error?.message || `exit ${probe.status}`).trim();
  const where = url.replace(/\/\/([^:@/]+):[^@/]*@/, "//$1:***@");
  if (ok) {
    availability = { available: true, reason: null, mustFail: false, url };
  } else if (inCi()) {
    availability = {
      available: false,
      mustFail: true,
      url,
      reason: `PostgreSQL at ${where} is unreachable (${why}) and CI is set: the real-PostgreSQL tests must run in CI.`,
    };
  } else {
    availability = {
      available: false,
      mustFail: false,
      url,
      reason:
        `Skipping real-PostgreSQL tests: no server at ${where} (${why}). ` +
        `Start one or set MNOTE_TEST_POSTGRES_URL; PGlite still runs the PostgreSQL SQL.`,
    };
    console.warn(`[mnote] ${availability.reason}`);
  }
  return availability;
}

/** A fresh schema name, so concurrent test files and runs never see each other's rows. */
export function freshSchemaName(prefix = "mnote_test"): string {
  return `${prefix}_${process.pid}_${randomBytes(5).toString("hex")}`;
}

/**
 * Delete every row and restart the audit ids: the schema is as good as freshly
 * migrated. Row DELETEs in reverse foreign-key order are far cheaper than
 * TRUNCATE (which rewrites files) or a new schema (20 DDL statements) for the few
 * rows a test leaves.
 */
async function emptyForReuse(driver: SqlDriver) {
  await driver.transaction(async (tx) => {
    for (const table of [...BUSINESS_TABLES, "ask_runs", "ask_run_events", "audit_streams"].reverse())
      await tx.run(`DELETE FROM ${table}`);
    // The ids come from the partitioned table's own sequence since version 12 (audit-partitions.ts).
    await tx.run(`ALTER SEQUENCE audit_log_id_seq RESTART WITH 1`);
  });
}

/** Hand out migrated schemas; a closed driver's schema is emptied and given to the next caller in this process. */
function schemaPool(open: (schema: string) => Promise<SqlDriver>) {
  const idle: string[] = [];
  return async (): Promise<SqlDriver> => {
    const reused = idle.pop();
    const schema = reused ?? freshSchemaName();
    const driver = await open(schema);
    try {
      if (reused) await emptyForReuse(driver);
      else await migrate(driver);
    } catch (error) {
      await driver.close();
      throw error;
    }
    let closed = false;
    return {
      ...driver,
      async close() {
        if (closed) return;
        closed = true;
        await driver.close();
        idle.push(schema);
      },
    };
  };
}

/** Drop test schemas (`freshSchemaName`) left by test processes that are gone: a process keeps its idle schemas until it exits. */
async function sweepStaleSchemas(url: string) {
  const driver = await openPostgresDriver(url, { poolMax: 1 });
  try {
    const schemas = await driver.all<{ name: string }>(
      `SELECT nspname AS name FROM pg_namespace WHERE nspname ~ '^mnote_[a-z]+_[0-9]+_[0-9a-f]{10}$'`,
    );
    for (const { name } of schemas) {
      const pid = Number(name.split("_")[2]);
      if (!Number.isInteger(pid) || pid === process.pid || processAlive(pid)) continue;
      await driver.exec(`DROP SCHEMA IF EXISTS "${name}" CASCADE`).catch(() => undefined);
    }
  } finally {
    await driver.close();
  }
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as { code?: string }).code === "EPERM";
  }
}

let swept: Promise<void> | undefined;
const postgresSchemas = schemaPool(async (schema) => {
  swept ??= sweepStaleSchemas(postgresAvailability().url).catch(() => undefined);
  await swept;
  return openPostgresDriver(postgresAvailability().url, { schema, poolMax: 4 });
});

/**
 * A driver on the test server in a schema of its own. With no options the schema
 * is a reused, emptied one (fast: the tools contract suite opens hundreds); with
 * options it is new and dropped at close. In CI with no server this throws, so the
 * calling test fails, as the rule says.
 */
export async function openTestPostgresDriver(options?: PostgresOptions): Promise<SqlDriver> {
  const state = postgresAvailability();
  if (!state.available) throw new Error(state.reason ?? "PostgreSQL is unavailable");
  if (!options) return postgresSchemas();
  return openPostgresDriver(state.url, { schema: freshSchemaName(), dropSchemaOnClose: true, poolMax: 4, ...options });
}

export async function openTestPostgresKernel(options?: KernelOptions): Promise<SqlKernel> {
  return SqlKernel.open(await openTestPostgresDriver(), options);
}

/** Where the fresh PGlite data directory is kept between test processes (one file per PGlite version). */
function pgliteTemplatePath(): { template: string; entry: string } {
  // The package does not export its package.json; read it next to the entry point (dist/…).
  const entry = createRequire(import.meta.url).resolve("@electric-sql/pglite");
  const { version } = JSON.parse(readFileSync(join(dirname(dirname(entry)), "package.json"), "utf8")) as {
    version: string;
  };
  return { template: join(tmpdir(), `mnote-pglite-template-${version}.tar`), entry };
}

/**
 * Make the template now, synchronously, if this machine has none yet. initdb in
 * WebAssembly takes several seconds, longer than a test hook may; calling this
 * while test files are collected keeps that wait out of every hook.
 */
export function ensurePgliteTemplateSync(): void {
  const { template, entry } = pgliteTemplatePath();
  if (existsSync(template)) return;
  const esmEntry = entry.replace(/index\.cjs$/, "index.js");
  const script = `
    import { writeFileSync, renameSync } from "node:fs";
    const { PGlite } = await import(${JSON.stringify(pathToFileURL(esmEntry).href)});
    const db = await PGlite.create();
    const dump = await db.dumpDataDir("none");
    const partial = ${JSON.stringify(template)} + "." + process.pid;
    writeFileSync(partial, Buffer.from(await dump.arrayBuffer()));
    renameSync(partial, ${JSON.stringify(template)});
    await db.close();`;
  spawnSync(process.execPath, ["--input-type=module", "-e", script], { stdio: "ignore", timeout: 120_000 });
}

let sharedInstance: Promise<PGlite> | undefined;

/**
 * One PGlite per test process, started from the template data directory (under a
 * second) instead of running initdb (several seconds).
 */
export function sharedPglite(): Promise<PGlite> {
  sharedInstance ??= (async () => {
    const { template } = pgliteTemplatePath();
    if (existsSync(template)) {
      try {
        return await PGlite.create({ loadDataDir: new Blob([readFileSync(template)]) });
      } catch {
        rmSync(template, { force: true });
      }
    }
    const db = await PGlite.create();
    try {
      const dump = await db.dumpDataDir("none");
      const partial = `${template}.${process.pid}.${randomBytes(3).toString("hex")}`;
      writeFileSync(partial, Buffer.from(await dump.arrayBuffer()));
      renameSync(partial, template);
    } catch {
      // The template is only an optimisation.
    }
    return db;
  })();
  return sharedInstance;
}

const pgliteSchemas = schemaPool(async (schema) => openPgliteDriver({ instance: await sharedPglite(), schema }));

/** A fresh, migrated, empty PGlite driver: a schema of the shared instance to itself (reused after close). */
export function openTestPgliteDriver(): Promise<SqlDriver> {
  return pgliteSchemas();
}

export async function openTestPgliteKernel(options?: KernelOptions): Promise<SqlKernel> {
  return SqlKernel.open(await openTestPgliteDriver(), options);
}
