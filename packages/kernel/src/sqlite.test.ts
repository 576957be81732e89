import { retentionSuite } from "./conformance/retention";
import { describe, expect, it } from "vitest";
import { kernelConformanceSuite } from "./conformance";
import { commentsSuite } from "./conformance/comments";
import { searchSuite } from "./conformance/search";
import { pageCreateSuite } from "./conformance/page-create";
import { proposalsMigrationSuite } from "./conformance/proposals-migration";
import { SqlKernel } from "./sql-kernel";
import { openSqliteDriver } from "./sql/sqlite-driver";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

kernelConformanceSuite("SQLite in memory", (options) => SqlKernel.open(openSqliteDriver(":memory:"), options));
commentsSuite("SQLite in memory", (options) => SqlKernel.open(openSqliteDriver(":memory:"), options));
searchSuite("SQLite in memory", (options) => SqlKernel.open(openSqliteDriver(":memory:"), options));
pageCreateSuite("SQLite in memory", (options) => SqlKernel.open(openSqliteDriver(":memory:"), options));
kernelConformanceSuite("SQLite file (WAL, two connections)", (options) =>
  SqlKernel.open(openSqliteDriver(join(mkdtempSync(join(tmpdir(), "mnote-kernel-")), "test.db")), options),
);

retentionSuite("SQLite file", (clock) =>
  SqlKernel.open(openSqliteDriver(join(mkdtempSync(join(tmpdir(), "mnote-kernel-")), "test.db")), { clock }),
);

proposalsMigrationSuite("SQLite file", async () =>
  openSqliteDriver(join(mkdtempSync(join(tmpdir(), "mnote-kernel-")), "test.db")),
);

describe("SQLite file: a lone audit append during another call's transaction", () => {
  it("waits its turn on the writer instead of blocking on the write lock", async () => {
    // A short busy timeout: through the reader connection the append would fail after it, not wait for the writer.
    const driver = openSqliteDriver(join(mkdtempSync(join(tmpdir(), "mnote-kernel-")), "test.db"), {
      busyTimeoutMs: 50,
    });
    const kernel = await SqlKernel.open(driver);
    const owner = (await kernel.admin.createUser({ id: "owner", name: "Owner" })).id;
    await kernel.admin.createWorkspace({ id: "ws", name: "WS", ownerId: owner });
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let begun!: () => void;
    const open = new Promise<void>((resolve) => (begun = resolve));
    const write = driver.transaction(async (tx) => {
      await tx.run(`UPDATE workspaces SET name = ? WHERE id = ?`, ["Renamed", "ws"]);
      begun();
      await held;
    });
    await open; // the write lock is held from here until release()
    const identity = {
      toolName: "mnote.page.get",
      workspaceId: "ws",
      documentId: "doc",
      actorId: owner,
      tokenId: null,
      holder: null,
      sessionId: null,
      runId: null,
      toolCallId: null,
      traceId: null,
    };
    const append = kernel.appendAudit({ identity, effect: "read", outcome: "ok" });
    await new Promise((resolve) => setTimeout(resolve, 120));
    release();
    await write;
    expect(await append).toBeGreaterThan(0);
    expect((await kernel.listAudit({ workspaceId: "ws" })).map((record) => record.outcome)).toEqual(["ok"]);
    await kernel.close();
  });
});
