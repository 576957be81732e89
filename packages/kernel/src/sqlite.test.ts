import { kernelConformanceSuite } from "./conformance";
import { SqlKernel } from "./sql-kernel";
import { openSqliteDriver } from "./sql/sqlite-driver";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

kernelConformanceSuite("SQLite in memory", () => SqlKernel.open(openSqliteDriver(":memory:")));
kernelConformanceSuite("SQLite file (WAL, two connections)", () =>
  SqlKernel.open(openSqliteDriver(join(mkdtempSync(join(tmpdir(), "mnote-kernel-")), "test.db"))),
);
