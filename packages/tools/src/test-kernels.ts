import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type KernelAdapter, SqlKernel, openSqliteDriver } from "@mnote/kernel";

export interface TestKernel {
  name: string;
  open: () => Promise<KernelAdapter>;
}

/**
 * Every kernel the contract suite runs against. Each contract test file loops
 * `describe.each(testKernels())`, so adding an entry here (PostgreSQL, PGlite)
 * runs the whole suite on it. `open` must return a fresh, migrated, empty kernel.
 */
export function testKernels(): TestKernel[] {
  return [
    { name: "SQLite in memory", open: () => SqlKernel.open(openSqliteDriver(":memory:")) },
    {
      name: "SQLite file (WAL, two connections)",
      open: () => SqlKernel.open(openSqliteDriver(join(mkdtempSync(join(tmpdir(), "mnote-tools-")), "test.db"))),
    },
  ];
}
