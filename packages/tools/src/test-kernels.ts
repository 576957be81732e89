import { copyFileSync, existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type KernelOptions, SqlKernel, openSqliteDriver } from "@mnote/kernel";
import {
  ensurePgliteTemplateSync,
  openTestPgliteKernel,
  openTestPostgresKernel,
  postgresAvailability,
  sharedPglite,
} from "@mnote/kernel/conformance";

// PGlite starts once per test file, which takes seconds on a busy machine: do it while the file loads, not inside
// the first test's timeout.
ensurePgliteTemplateSync();
await sharedPglite();

export interface TestKernel {
  name: string;
  /** `options.clock`: a test that passes time moves its own clock (`ManualClock`). */
  open: (options?: KernelOptions) => Promise<SqlKernel>;
}

/**
 * Every kernel the contract suite runs against. Each contract test file loops
 * `describe.each(testKernels())`, so adding an entry here (PostgreSQL, PGlite)
 * runs the whole suite on it. `open` must return a fresh, migrated, empty kernel.
 */
export function testKernels(): TestKernel[] {
  // SQLite on a file (WAL, a reader beside the writer) is what `npm start` runs; the kernel's
  // conformance suite covers in-memory SQLite, so the contract suite uses the file here.
  return [
    {
      name: "SQLite file (WAL, two connections)",
      open: async (options) => SqlKernel.open(openSqliteDriver(await freshMigratedSqliteFile()), options),
    },
    ...postgresKernels(),
  ];
}

/**
 * PGlite always (PostgreSQL's SQL, no server; a schema per kernel). The real server
 * (MNOTE_TEST_POSTGRES_URL) when reachable; without one it is left out with a
 * message, except under CI=true, where its `open` fails the tests.
 */
function postgresKernels(): TestKernel[] {
  const server = postgresAvailability();
  return [
    { name: "PGlite (PostgreSQL in process)", open: openTestPgliteKernel },
    ...(server.available || server.mustFail ? [{ name: "PostgreSQL server", open: openTestPostgresKernel }] : []),
  ];
}

/**
 * One kernel per database kind, for the property suites: SQLite, and PostgreSQL's dialect once, on the real server
 * when it is there (else PGlite). PGlite and the server run the same SQL through the same dialect code, so a
 * property that generates hundreds of call sequences learns nothing new from running on both; the example-based
 * suites still run every case on all three (`testKernels`).
 */
export function kernelPerDatabaseKind(): TestKernel[] {
  const [sqlite, ...postgres] = testKernels();
  return [sqlite!, postgres.at(-1)!];
}

let sqliteTemplate: Promise<string> | undefined;

/**
 * A fresh SQLite file, migrated and empty: a copy of one this process migrated once. Creating and migrating a new
 * file was about 7 ms (4 ms of CPU) of each case's world on a 2-core machine, a copy is about 1 ms; the kernel
 * still opens it as a file of its own, in WAL mode, with its reader beside its writer, and checks its migrations.
 */
async function freshMigratedSqliteFile(): Promise<string> {
  sqliteTemplate ??= (async () => {
    const file = join(mkdtempSync(join(tmpdir(), "mnote-tools-template-")), "template.db");
    await (await SqlKernel.open(openSqliteDriver(file))).close();
    // Closing the last connection checkpoints the WAL into the file and removes it; a copy of the file alone
    // would otherwise lack what the WAL still held.
    if (existsSync(`${file}-wal`)) throw new Error(`the SQLite template kept its WAL: ${file}-wal`);
    return file;
  })();
  const copy = join(mkdtempSync(join(tmpdir(), "mnote-tools-")), "test.db");
  copyFileSync(await sqliteTemplate, copy);
  return copy;
}
