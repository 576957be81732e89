import { retentionSuite } from "./conformance/retention";
import { beforeAll, describe, expect, it } from "vitest";
import { kernelConformanceSuite } from "./conformance";
import { commentsSuite } from "./conformance/comments";
import { searchSuite } from "./conformance/search";
import { pageCreateSuite } from "./conformance/page-create";
import { SqlKernel } from "./sql-kernel";
import { ensurePgliteTemplateSync, openTestPgliteDriver, openTestPgliteKernel, sharedPglite } from "./test-databases";

// PostgreSQL's SQL with no server: one PGlite per test process, a schema of its own per kernel.
ensurePgliteTemplateSync();
beforeAll(() => sharedPglite().then(() => undefined), 120_000);

kernelConformanceSuite("PGlite (PostgreSQL in process)", openTestPgliteKernel);
commentsSuite("PGlite", openTestPgliteKernel);
searchSuite("PGlite", openTestPgliteKernel);
pageCreateSuite("PGlite", openTestPgliteKernel);

retentionSuite("PGlite", (clock) => openTestPgliteKernel({ clock }));

describe("PGlite driver", () => {
  it("returns BIGINT and COUNT(*) as numbers, like SQLite", async () => {
    const driver = await openTestPgliteDriver();
    try {
      const kernel = await SqlKernel.open(driver);
      const row = await driver.get<{ n: unknown; big: unknown }>(
        `SELECT COUNT(*) AS n, CAST(? AS BIGINT) AS big FROM users`,
        [42],
      );
      expect(row).toEqual({ n: 0, big: 42 });
      expect(kernel.dialect).toBe("postgres");
    } finally {
      await driver.close();
    }
  });

  it("keeps kernels in separate schemas of one instance apart", async () => {
    const a = await openTestPgliteKernel();
    const b = await openTestPgliteKernel();
    try {
      await a.admin.createUser({ id: "only_in_a", name: "A" });
      expect(await a.admin.getUser("only_in_a")).not.toBeNull();
      expect(await b.admin.getUser("only_in_a")).toBeNull();
    } finally {
      await a.close();
      await b.close();
    }
  });
});
