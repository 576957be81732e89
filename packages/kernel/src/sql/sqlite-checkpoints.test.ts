import { mkdtempSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Worker } from "node:worker_threads";
import { afterEach, describe, expect, it } from "vitest";
import { CHECKPOINT_EVERY, driverPath, WRITER_WAL_PAGES } from "./sqlite-checkpoints";
import { openSqliteDriver, type SqliteDriver } from "./sqlite-driver";

const opened: SqliteDriver[] = [];
function fileDriver(options: Parameters<typeof openSqliteDriver>[1] = {}) {
  const path = join(mkdtempSync(join(tmpdir(), "mnote-checkpoints-")), "test.db");
  const driver = openSqliteDriver(path, options);
  opened.push(driver);
  return { driver, path };
}
afterEach(async () => {
  await Promise.all(opened.splice(0).map((driver) => driver.close()));
});

async function autoCheckpointPages(driver: SqliteDriver) {
  return (await driver.get<{ wal_autocheckpoint: number }>("PRAGMA wal_autocheckpoint"))!.wal_autocheckpoint;
}

/** `count` commits of one row each, as lone writes and as transactions. */
async function commits(driver: SqliteDriver, count: number, from = 0) {
  for (let i = from; i < from + count; i++) {
    if (i % 2 === 0) await driver.run("INSERT INTO t (v) VALUES (?)", [`row ${i} `.repeat(40)]);
    else await driver.transaction((tx) => tx.run("INSERT INTO t (v) VALUES (?)", [`row ${i} `.repeat(40)]));
  }
}

describe("WAL checkpoints on a worker thread (decision 0051)", () => {
  it("checkpoints every CHECKPOINT_EVERY commits off the event loop, and the WAL starts over", async () => {
    const { driver, path } = fileDriver();
    await driver.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)");
    // The writer only checkpoints itself past WRITER_WAL_PAGES: the worker does it before then.
    expect(await autoCheckpointPages(driver)).toBe(WRITER_WAL_PAGES);
    // The table's creation is the first commit.
    await commits(driver, CHECKPOINT_EVERY - 2);
    // The worker starts with the first checkpoint it is needed for.
    expect(Reflect.get(driver.checkpoints!, "worker")).toBeNull();
    await commits(driver, 1, CHECKPOINT_EVERY - 2);
    expect(await driver.checkpoints!.after(0)).toBe(true);
    const first = driver.checkpoints!.counts();
    expect(first.completed).toBe(1);
    // Every frame the WAL held was copied back: no write came between, and no reader held an older snapshot.
    expect(first.log).toBeGreaterThan(0);
    expect(first.checkpointed).toBe(first.log);

    // Ten rounds more: each checkpoint lets the next writes start the WAL from its beginning, so the file stays
    // the size of about one round, where without checkpoints it would hold all eleven.
    const walAfterOne = statSync(`${path}-wal`).size;
    for (let round = 1; round <= 10; round++) {
      await commits(driver, CHECKPOINT_EVERY, round * CHECKPOINT_EVERY);
      expect(await driver.checkpoints!.after(round)).toBe(true);
      expect(driver.checkpoints!.counts().checkpointed).toBeGreaterThan(0);
    }
    expect(statSync(`${path}-wal`).size).toBeLessThanOrEqual(walAfterOne * 2);
    expect((await driver.get<{ n: number }>("SELECT count(*) AS n FROM t"))!.n).toBe(11 * CHECKPOINT_EVERY - 1);
  });

  it("keeps checkpointing across the wrap of its 32-bit commit count", async () => {
    const { driver } = fileDriver();
    await driver.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)");
    // 2^31 commits are 25 days at 1,000 a second; start the count just short of the wrap.
    Reflect.set(driver.checkpoints!, "commits", 2 ** 31 - CHECKPOINT_EVERY - 1);
    await commits(driver, CHECKPOINT_EVERY);
    expect(await driver.checkpoints!.after(0)).toBe(true);
    for (let round = 1; round <= 3; round++) {
      await commits(driver, CHECKPOINT_EVERY, round * CHECKPOINT_EVERY);
      expect(await driver.checkpoints!.after(round)).toBe(true);
    }
    expect(Reflect.get(driver.checkpoints!, "commits")).toBeLessThan(0);
  });

  it("goes back to SQLite's own checkpoints when the worker is gone", async () => {
    const { driver } = fileDriver();
    await driver.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)");
    await commits(driver, CHECKPOINT_EVERY);
    expect(await driver.checkpoints!.after(0)).toBe(true);
    const worker = Reflect.get(driver.checkpoints!, "worker") as Worker;
    const exited = new Promise((resolve) => worker.once("exit", resolve));
    await worker.terminate();
    await exited;
    expect(driver.checkpoints!.active).toBe(false);
    expect(await autoCheckpointPages(driver)).toBe(1000);
    // Writes go on, checkpointed by the writer as before.
    await commits(driver, CHECKPOINT_EVERY * 2, CHECKPOINT_EVERY);
    expect(await driver.checkpoints!.after(1)).toBe(false);
    expect((await driver.get<{ n: number }>("SELECT count(*) AS n FROM t"))!.n).toBe(CHECKPOINT_EVERY * 3);
  });

  it("finds better-sqlite3 by path, as the worker loads it", () => {
    expect(driverPath()).toMatch(/better-sqlite3[\\/]lib[\\/]index\.js$/);
  });

  it("can be left to SQLite, and an in-memory database has none", async () => {
    const { driver } = fileDriver({ checkpointWorker: false });
    expect(driver.checkpoints).toBeNull();
    expect(await autoCheckpointPages(driver)).toBe(1000);
    const memory = openSqliteDriver(":memory:");
    opened.push(memory);
    expect(memory.checkpoints).toBeNull();
  });

  it("holds the process open while it closes: a script whose last step is close() does not end early", async () => {
    const { driver } = fileDriver();
    await driver.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)");
    await commits(driver, CHECKPOINT_EVERY);
    expect(await driver.checkpoints!.after(0)).toBe(true);
    // The worker is unreferenced while it works (it never keeps a finished process alive)...
    const ports = () => process.getActiveResourcesInfo().filter((kind) => kind === "MessagePort").length;
    const working = ports();
    const closing = driver.checkpoints!.close();
    // ...and referenced until it has stopped once close() waits for it: without that, Node saw nothing left to
    // wait on and ended a CLI's or a benchmark's process with exit code 13 (an unsettled top-level await).
    expect(ports()).toBe(working + 1);
    await closing;
    expect(ports()).toBe(working);
  });

  it("closes while a checkpoint may be running, and the data is all there on reopening", async () => {
    const { driver, path } = fileDriver();
    await driver.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)");
    await commits(driver, CHECKPOINT_EVERY * 3);
    opened.splice(opened.indexOf(driver), 1);
    await driver.close();
    const again = openSqliteDriver(path);
    opened.push(again);
    expect((await again.get<{ n: number }>("SELECT count(*) AS n FROM t"))!.n).toBe(CHECKPOINT_EVERY * 3);
  });
});
