import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { ManualClock } from "./clock";
import { CopyRefused, copyDatabase } from "./copy";
import type { SqlDriver, SqlExecutor } from "./sql/driver";
import { openSqliteDriver } from "./sql/sqlite-driver";
import { SqlKernel } from "./sql-kernel";
import {
  ensurePgliteTemplateSync,
  openTestPgliteDriver,
  openTestPostgresDriver,
  postgresAvailability,
  sharedPglite,
} from "./test-databases";
import type { CallIdentity, KernelCommand } from "./types";

ensurePgliteTemplateSync();
beforeAll(() => sharedPglite().then(() => undefined), 120_000);
const server = postgresAvailability();

const sqliteFile = () => openSqliteDriver(join(mkdtempSync(join(tmpdir(), "mnote-copy-")), "mnote.db"));

/** A source database with every table in use, through the kernel as the tools would fill it. */
async function fillSource(kernel: SqlKernel) {
  const owner = (await kernel.admin.createUser({ id: "u_owner", name: "Owner" })).id;
  const viewer = (await kernel.admin.createUser({ id: "u_viewer", name: "Viewer" })).id;
  const ws = (await kernel.admin.createWorkspace({ id: "ws", name: "Team", ownerId: owner })).id;
  await kernel.admin.addMember({ workspaceId: ws, userId: viewer, role: "viewer" });
  const blocks = Array.from({ length: 12 }, (_, i) => ({ id: `b${i}`, type: "paragraph" as const, text: `line ${i}` }));
  const doc = (await kernel.admin.createPage({ id: "doc", workspaceId: ws, title: "Plan", blocks, createdBy: owner }))
    .id;
  await kernel.admin.createPage({ id: "private", workspaceId: ws, title: "Secret", isPrivate: true, createdBy: owner });
  await kernel.admin.grantPage({ documentId: "private", userId: viewer, access: "read" });
  await kernel.admin.createToken({
    userId: owner,
    holder: "agent",
    scopes: ["page.read", "page.write"],
    label: "hermes",
  });
  let n = 0;
  const identity: () => CallIdentity = () => ({
    toolName: "mnote.page.save",
    workspaceId: ws,
    documentId: doc,
    actorId: owner,
    tokenId: null,
    holder: "person",
    sessionId: "s",
    runId: "run",
    toolCallId: `c${++n}`,
    traceId: "t",
  });
  const run = (command: KernelCommand, expiresAt = "2999-01-01T00:00:00.000Z") =>
    kernel.execute({ identity: identity(), command, idempotency: { key: `k${++n}`, fingerprint: `f${n}`, expiresAt } });
  const save = await run({
    name: "page.body.save",
    mode: "append",
    blocks: [{ id: "h", type: "heading", level: 2, text: "Head" }],
  });
  await run({ name: "page.head.updateTitle", title: "Plan v2" });
  await run({ name: "page.layout.updateOptions", options: { wideLayout: true } });
  await run({ name: "artifact.summary.upsert", summary: "short" });
  await run({ name: "artifact.aiNote.create", content: "note" }, "2000-01-01T00:00:00.000Z");
  if (save.kind !== "applied") throw new Error(save.kind);
  await run({ name: "page.revert", targetCommandId: save.commandId });
  for (let i = 0; i < 7; i++)
    await kernel.appendAudit({ identity: identity(), effect: "read", outcome: "ok", durationMs: i });
  return { ws, doc, owner };
}

/** Copy, then prove the target is the same database and keeps working. */
async function copyAndCheck(source: SqlDriver, target: SqlDriver) {
  const from = await SqlKernel.open(source);
  const { ws, doc, owner } = await fillSource(from);
  const report = await copyDatabase(source, target, { batchSize: 5 });
  expect(report.tables).toMatchObject({ users: 2, pages: 2, blocks: 12, commands: 6, audit_log: 13 });
  const to = await SqlKernel.open(target);
  expect(await to.admin.tableSnapshot()).toEqual(await from.admin.tableSnapshot());
  // New audit ids continue after the copied ones (the identity sequence moved on PostgreSQL).
  const lastId = (await from.listAudit({ limit: 1 }))[0]!.id;
  expect(
    await to.appendAudit({
      identity: {
        toolName: "x",
        workspaceId: ws,
        documentId: doc,
        actorId: owner,
        tokenId: null,
        holder: null,
        sessionId: null,
        runId: null,
        toolCallId: null,
        traceId: null,
      },
      effect: "none",
      outcome: "ok",
    }),
  ).toBe(lastId + 1);
  // The page, its revision and history moved: the next write continues at the next revision.
  const page = await to.getPage(doc);
  const next = await to.execute({
    identity: {
      toolName: "mnote.page.update_title",
      workspaceId: ws,
      documentId: doc,
      actorId: owner,
      tokenId: null,
      holder: "person",
      sessionId: null,
      runId: null,
      toolCallId: null,
      traceId: null,
    },
    command: { name: "page.head.updateTitle", title: "after the move" },
    baseRevision: page!.revision,
    idempotency: { key: "after", fingerprint: "after", expiresAt: "2999-01-01T00:00:00.000Z" },
  });
  expect(next).toMatchObject({ kind: "applied", revisionBefore: page!.revision, revisionAfter: page!.revision + 1 });
  return { from, to, report };
}

describe("copyDatabase", () => {
  // The first PGlite database of the file: migrating it and the copy took 18–20 s at a load average of 30 (2 cores).
  it("copies a SQLite file to PostgreSQL (PGlite), identical row for row", async () => {
    const { from, to } = await copyAndCheck(sqliteFile(), await openTestPgliteDriver());
    await from.close();
    await to.close();
  }, 60_000);

  it("copies back from PostgreSQL (PGlite) to a SQLite file", async () => {
    const pglite = await openTestPgliteDriver();
    const { from, to } = await copyAndCheck(pglite, sqliteFile());
    await from.close();
    await to.close();
  });

  it.skipIf(!server.available)("copies a SQLite file to the PostgreSQL server", async () => {
    const { from, to } = await copyAndCheck(sqliteFile(), await openTestPostgresDriver());
    await from.close();
    await to.close();
  });

  it("copies audit records of months the PostgreSQL target has no partition for yet (it has no default one)", async () => {
    const source = sqliteFile();
    // Records of March 2024: the target makes only the months around now when it opens.
    const from = await SqlKernel.open(source, { clock: new ManualClock("2024-03-10T00:00:00.000Z") });
    await fillSource(from);
    const target = await openTestPgliteDriver();
    const report = await copyDatabase(source, target);
    expect(report.tables.audit_log).toBe(13);
    expect(await target.get(`SELECT COUNT(*) AS n FROM audit_log_m202403`)).toEqual({ n: 13 });
    await from.close();
    await target.close();
  });

  it("refuses a target that already has data, and changes nothing", async () => {
    const source = sqliteFile();
    await fillSource(await SqlKernel.open(source));
    const targetDriver = await openTestPgliteDriver();
    const target = await SqlKernel.open(targetDriver);
    await target.admin.createUser({ id: "someone", name: "Already here" });
    const before = await target.admin.tableSnapshot();
    await expect(copyDatabase(source, targetDriver)).rejects.toThrow(CopyRefused);
    await expect(copyDatabase(source, targetDriver)).rejects.toThrow(/not empty: users \(1 rows\)/);
    expect(await target.admin.tableSnapshot()).toEqual(before);
    await source.close();
    await target.close();
  });

  it("writes nothing when the copy fails halfway", async () => {
    const real = sqliteFile();
    await fillSource(await SqlKernel.open(real));
    // A source that breaks while the last table is read: everything before it was already inserted into the target.
    const failing = (tx: SqlExecutor): SqlExecutor => ({
      ...tx,
      all: (sql, params) =>
        sql.includes("FROM audit_log") ? Promise.reject(new Error("disk gone")) : tx.all(sql, params),
      get: (sql, params) => tx.get(sql, params),
      run: (sql, params) => tx.run(sql, params),
    });
    const source: SqlDriver = { ...real, transaction: (fn) => real.transaction((tx) => fn(failing(tx))) };
    const target = await openTestPgliteDriver();
    await expect(copyDatabase(source, target)).rejects.toThrow("disk gone");
    const kernel = await SqlKernel.open(target);
    const snapshot = await kernel.admin.tableSnapshot();
    expect(Object.values(snapshot).every((rows) => rows.length === 0)).toBe(true);
    await real.close();
    await kernel.close();
  });
});
