import { afterAll, describe, expect, it } from "vitest";
import { openSqliteDriver } from "./sql/sqlite-driver";
import { SqlKernel } from "./sql-kernel";
import { openTestPostgresKernel, postgresAvailability } from "./test-databases";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** Issue 20 item 5: what the metrics read of the database — the pool (PostgreSQL) and the pending proposals. */
const server = postgresAvailability();

describe.skipIf(!server.available)("poolStats on real PostgreSQL", () => {
  let kernel: SqlKernel | undefined;
  afterAll(() => kernel?.close());

  it("counts the pool's connections and every failed statement", async () => {
    kernel = await openTestPostgresKernel();
    const before = kernel.poolStats()!;
    expect(before.total).toBeGreaterThanOrEqual(0);
    await Promise.all([kernel.ping(), kernel.ping(), kernel.ping()]);
    const after = kernel.poolStats()!;
    expect(after.total).toBeGreaterThanOrEqual(1);
    expect(after.total - after.idle).toBeGreaterThanOrEqual(0);
    expect(after.waiting).toBe(0);
    await expect(kernel.listAudit({ limit: 1, toolName: "x" })).resolves.toEqual([]);
    // A statement the server refuses (a unique violation on the workspace id) is counted.
    await kernel.admin.createUser({ id: "pool_owner", name: "Pool" });
    await kernel.admin.createWorkspace({ id: "pool_ws", name: "Pool", ownerId: "pool_owner" });
    await expect(
      kernel.admin.createWorkspace({ id: "pool_ws", name: "Again", ownerId: "pool_owner" }),
    ).rejects.toThrow();
    expect(kernel.poolStats()!.errors).toBeGreaterThan(before.errors);
    expect(await kernel.countPendingProposals()).toBe(0);
  });
});

describe("poolStats on SQLite", () => {
  it("is null: an in-process database has no pool", async () => {
    const dir = mkdtempSync(join(tmpdir(), "mnote-pool-"));
    const kernel = await SqlKernel.open(openSqliteDriver(join(dir, "mnote.db")));
    try {
      expect(kernel.poolStats()).toBeNull();
      expect(await kernel.countPendingProposals()).toBe(0);
    } finally {
      await kernel.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
