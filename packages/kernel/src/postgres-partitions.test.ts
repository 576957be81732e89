import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { ManualClock } from "./clock";
import { migrate } from "./migrations";
import type { SqlDriver } from "./sql/driver";
import { SqlKernel } from "./sql-kernel";
import { freshSchemaName, openTestPostgresDriver, postgresAvailability } from "./test-databases";

const server = postgresAvailability();

/** The audit log's partitions on a real server (audit-partitions.ts, retention.ts, decision 0035). */
describe.skipIf(!server.available)("PostgreSQL audit partitions", () => {
  const open: SqlDriver[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((d) => d.close()));
  });
  const fresh = async () => {
    const driver = await openTestPostgresDriver({ schema: freshSchemaName("mnote_part") });
    open.push(driver);
    return driver;
  };

  it("migrates a populated audit_log online: every row kept, ids go on, indexes taken over, writes go through meanwhile", async () => {
    const driver = await fresh();
    await migrate(driver, undefined, 10);
    // 20,000 records as a release before version 12 wrote them (no month column).
    await driver.run(
      `INSERT INTO audit_log (at, tool_name, effect, outcome, workspace_id, document_id, actor_id, command_id)
       SELECT '2025-06-01T00:00:00.000Z', 'mnote.page.get', 'read', 'ok', 'ws', 'doc', 'u',
         CASE WHEN g % 10 = 0 THEN 'cmd_' || g ELSE NULL END
       FROM generate_series(1, 20000) g`,
    );
    const before = await driver.get<{ n: number; max: number }>(`SELECT COUNT(*) AS n, MAX(id) AS max FROM audit_log`);
    // An instance still on the old release keeps writing while the migration runs.
    let writing = true;
    let written = 0;
    const writer = (async () => {
      while (writing) {
        await driver.run(
          `INSERT INTO audit_log (at, tool_name, effect, outcome) VALUES ('2025-06-02T00:00:00.000Z', 'old', 'read', 'ok')`,
        );
        written += 1;
      }
    })();
    const applied = await migrate(driver);
    writing = false;
    await writer;
    expect(applied.applied).toContain(12);
    expect(written).toBeGreaterThan(0);
    const after = await driver.get<{ n: number }>(`SELECT COUNT(*) AS n FROM audit_log`);
    expect(after?.n).toBe(before!.n + written);
    expect(await driver.get(`SELECT relkind AS kind FROM pg_class WHERE oid = to_regclass('audit_log')`)).toEqual({
      kind: "p",
    });
    // The indexes built online became the partition's: attaching built nothing under the migration's lock.
    const parents = await driver.all<{ child: string; parent: string }>(
      `SELECT c.relname AS child, p.relname AS parent FROM pg_inherits i
         JOIN pg_class c ON c.oid = i.inhrelid JOIN pg_class p ON p.oid = i.inhparent
       WHERE c.relnamespace = current_schema()::regnamespace
         AND c.relname IN ('audit_before_months_id', 'audit_before_months_by_command', 'audit_before_months_by_document')
       ORDER BY 1`,
    );
    expect(parents).toEqual([
      { child: "audit_before_months_by_command", parent: "audit_by_command" },
      { child: "audit_before_months_by_document", parent: "audit_by_document" },
      { child: "audit_before_months_id", parent: "audit_log_id" },
    ]);
    // New records get ids after every old one, and land in their month's partition.
    const clock = new ManualClock("2026-02-10T00:00:00.000Z");
    const kernel = new SqlKernel(driver, { clock });
    await kernel.housekeeping.ensurePartitions(clock.now());
    const id = await kernel.appendAudit({
      identity: {
        toolName: "mnote.page.get",
        workspaceId: "ws",
        documentId: "doc",
        actorId: "u",
        tokenId: null,
        holder: "agent",
        sessionId: null,
        runId: null,
        toolCallId: null,
        traceId: null,
      },
      effect: "read",
      outcome: "ok",
    });
    expect(id).toBeGreaterThan(before!.max + written - 1);
    expect(await driver.get(`SELECT COUNT(*) AS n FROM audit_log_m202602 WHERE id = ?`, [id])).toEqual({ n: 1 });
    expect((await kernel.getAudit(id))?.identity.toolName).toBe("mnote.page.get");
  }, 120_000);

  it("lets one instance sweep at a time: another holding the lock makes this one skip", async () => {
    const driver = await fresh();
    const clock = new ManualClock("2026-01-15T00:00:00.000Z");
    const kernel = await SqlKernel.open(driver, { clock });
    const schema = (await driver.get<{ s: string }>(`SELECT current_schema() AS s`))!.s;
    const other = new pg.Client({ connectionString: server.url, options: `-c search_path=${schema}` });
    await other.connect();
    try {
      await other.query(
        `SELECT pg_advisory_lock($1, hashtext(coalesce(current_schema(), '') || 'audit'))`,
        [0x6d6e686b],
      );
      expect(await kernel.housekeeping.sweepAudit(clock.now(), { days: 1 })).toMatchObject({ skipped: 1 });
      // The expired-records sweep has a lock of its own and runs meanwhile.
      expect(await kernel.housekeeping.sweepExpired(clock.now(), { tokenGraceDays: 1 })).toMatchObject({ skipped: 0 });
      await other.query(`SELECT pg_advisory_unlock_all()`);
      expect(await kernel.housekeeping.sweepAudit(clock.now(), { days: 1 })).toMatchObject({ skipped: 0 });
    } finally {
      await other.end();
    }
  });

  it("keeps a partition for this month and the next ones by creating months ahead, and a month's drop leaves other months alone", async () => {
    const driver = await fresh();
    const clock = new ManualClock("2026-01-31T23:59:59.000Z");
    const kernel = await SqlKernel.open(driver, { clock });
    const months = async () =>
      (
        await driver.all<{ name: string }>(
          `SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
           WHERE i.inhparent = to_regclass('audit_log') ORDER BY 1`,
        )
      ).map((row) => row.name);
    expect(await months()).toEqual([
      "audit_log_before_months",
      "audit_log_kept",
      "audit_log_m202601",
      "audit_log_m202602",
      "audit_log_m202603",
    ]);
    const identity = {
      toolName: "mnote.page.get",
      workspaceId: "ws",
      documentId: "doc",
      actorId: "u",
      tokenId: null,
      holder: "agent" as const,
      sessionId: null,
      runId: null,
      toolCallId: null,
      traceId: null,
    };
    await kernel.appendAudit({ identity, effect: "read", outcome: "ok" });
    clock.advance(1000);
    const february = await kernel.appendAudit({ identity, effect: "read", outcome: "ok" });
    clock.advance(30 * 86_400_000);
    // Retention of 30 days at 2026-03-02: January is past, February is not. The February record made April
    // (the kernel checks its months before it writes in one); the sweep makes May.
    const sweep = await kernel.housekeeping.sweepAudit(clock.now(), { days: 30 });
    expect(sweep).toMatchObject({ partitionsDropped: 1, droppedRecords: 1, removed: 0, partitionsCreated: 1 });
    expect(await months()).toEqual([
      "audit_log_before_months",
      "audit_log_kept",
      "audit_log_m202602",
      "audit_log_m202603",
      "audit_log_m202604",
      "audit_log_m202605",
    ]);
    expect((await kernel.listAudit({ documentId: "doc" })).map((r) => r.id)).toEqual([february]);
    // No default partition (version 18): a month is dropped with DETACH … CONCURRENTLY (decision 0041).
    expect(
      await driver.get(`SELECT partdefid::int AS id FROM pg_partitioned_table WHERE partrelid = 'audit_log'::regclass`),
    ).toEqual({ id: 0 });
  });

  const identity = {
    toolName: "mnote.page.get",
    workspaceId: "ws",
    documentId: "doc",
    actorId: "u",
    tokenId: null,
    holder: "agent" as const,
    sessionId: null,
    runId: null,
    toolCallId: null,
    traceId: null,
  };
  const read = (kernel: SqlKernel) => kernel.appendAudit({ identity, effect: "read", outcome: "ok" });
  /** `count` records of `month` (yyyymm), in its own partition, written as a busy month would have left them. */
  const loadMonth = async (driver: SqlDriver, month: number, count: number) => {
    await driver.run(`CREATE TABLE audit_log_m${month} PARTITION OF audit_log FOR VALUES IN (${month})`);
    const at = `${String(month).slice(0, 4)}-${String(month).slice(4)}-10T00:00:00.000Z`;
    await driver.run(
      `INSERT INTO audit_log (at, tool_name, effect, outcome, document_id, month)
       SELECT ?, 'mnote.page.get', 'read', 'ok', 'old', ${month} FROM generate_series(1, ${count})`,
      [at],
    );
  };

  it("drops a month while calls write: no insert waits for the drop, none is lost", async () => {
    const driver = await fresh();
    const clock = new ManualClock("2026-06-15T00:00:00.000Z");
    const kernel = await SqlKernel.open(driver, { clock });
    await loadMonth(driver, 202601, 20_000);
    // Another instance's call in the middle of its transaction: it holds audit_log (ROW EXCLUSIVE) until it commits.
    const schema = (await driver.get<{ s: string }>(`SELECT current_schema() AS s`))!.s;
    const other = new pg.Client({ connectionString: server.url, options: `-c search_path=${schema}` });
    await other.connect();
    try {
      await other.query(`BEGIN`);
      await other.query(
        `INSERT INTO audit_log (at, tool_name, effect, outcome, month) VALUES ($1, 'other', 'read', 'ok', 202606)`,
        [clock.now().toISOString()],
      );
      const sweeping = kernel.housekeeping.sweepAudit(clock.now(), { days: 90 });
      // The drop waits for that transaction (DETACH … CONCURRENTLY waits for whoever may still use the month).
      const sweepWaits = async () =>
        Boolean(
          await driver.get(
            `SELECT 1 AS ok FROM pg_stat_activity WHERE query LIKE 'ALTER TABLE audit_log DETACH PARTITION%'
               AND wait_event_type = 'Lock'`,
          ),
        );
      let looks = 0;
      while (!(await sweepWaits())) {
        expect(++looks).toBeLessThan(5_000);
      }
      // Meanwhile this process's calls write their records: with a lock on audit_log they would queue behind it.
      const written = [];
      for (let i = 0; i < 20; i++) written.push(await read(kernel));
      expect(await sweepWaits()).toBe(true);
      await other.query(`COMMIT`);
      expect(await sweeping).toMatchObject({ partitionsDropped: 1, droppedRecords: 20_000, removed: 0 });
      // Calls going on through the whole sweep are all kept.
      let writing = true;
      const during: number[] = [];
      const writer = (async () => {
        while (writing) during.push(await read(kernel));
      })();
      await loadMonth(driver, 202602, 20_000);
      expect(await kernel.housekeeping.sweepAudit(clock.now(), { days: 90 })).toMatchObject({ partitionsDropped: 1 });
      writing = false;
      await writer;
      const ids = [...written, ...during];
      const kept = await driver.get<{ n: number }>(
        `SELECT COUNT(*)::int AS n FROM audit_log WHERE id IN (${ids.join(", ")})`,
      );
      expect(kept?.n).toBe(ids.length);
      expect(await driver.get(`SELECT COUNT(*)::int AS n FROM audit_log WHERE tool_name = 'other'`)).toEqual({ n: 1 });
      expect(await driver.get(`SELECT COUNT(*)::int AS n FROM audit_log WHERE document_id = 'old'`)).toEqual({ n: 0 });
      expect(
        await driver.get(`SELECT to_regclass('audit_log_m202601') AS t, to_regclass('audit_log_m202602') AS u`),
      ).toEqual({
        t: null,
        u: null,
      });
    } finally {
      await other.end();
    }
  }, 60_000);

  it("finishes a drop that stopped half-way: a detach left pending, a month detached but not dropped", async () => {
    const driver = await fresh();
    const clock = new ManualClock("2026-06-15T00:00:00.000Z");
    const kernel = await SqlKernel.open(driver, { clock });
    await loadMonth(driver, 202601, 1000);
    await loadMonth(driver, 202602, 1000);
    const schema = (await driver.get<{ s: string }>(`SELECT current_schema() AS s`))!.s;
    const connect = async () => {
      const client = new pg.Client({ connectionString: server.url, options: `-c search_path=${schema}` });
      await client.connect();
      return client;
    };
    const [holder, detacher] = [await connect(), await connect()];
    try {
      // A concurrent detach that gives up waiting for a transaction: January stays "pending detach".
      await holder.query(`BEGIN`);
      await holder.query(`SELECT COUNT(*) FROM audit_log`);
      await detacher.query(`SET lock_timeout = '100ms'`);
      await expect(
        detacher.query(`ALTER TABLE audit_log DETACH PARTITION audit_log_m202601 CONCURRENTLY`),
      ).rejects.toThrow();
      await holder.query(`COMMIT`);
      expect(
        await driver.get(
          `SELECT inhdetachpending AS pending FROM pg_inherits WHERE inhrelid = 'audit_log_m202601'::regclass`,
        ),
      ).toEqual({ pending: true });
      // February detached, and the process stopped before dropping it.
      await detacher.query(`ALTER TABLE audit_log DETACH PARTITION audit_log_m202602`);
    } finally {
      await holder.end();
      await detacher.end();
    }
    expect(await kernel.housekeeping.sweepAudit(clock.now(), { days: 90 })).toMatchObject({
      partitionsDropped: 2,
      droppedRecords: 2000,
    });
    expect(
      await driver.get(`SELECT to_regclass('audit_log_m202601') AS t, to_regclass('audit_log_m202602') AS u`),
    ).toEqual({ t: null, u: null });
  });

  it("writes in a month that has no partition yet: the kernel makes it first", async () => {
    const driver = await fresh();
    const clock = new ManualClock("2026-06-15T00:00:00.000Z");
    const kernel = await SqlKernel.open(driver, { clock });
    // Years ahead, past every month made at open.
    clock.advance(5 * 365 * 86_400_000);
    expect(await driver.get(`SELECT to_regclass('audit_log_m203106') AS t`)).toEqual({ t: null });
    const far = await read(kernel);
    expect(await driver.get(`SELECT COUNT(*)::int AS n FROM audit_log_m203106 WHERE id = ?`, [far])).toEqual({ n: 1 });
    // A write's record, inside its transaction (a proposal is indexed beside its record).
    clock.advance(31 * 86_400_000);
    const proposal = await kernel.appendAudit({
      identity: { ...identity, toolName: "mnote.page.update_title" },
      effect: "dry_run",
      outcome: "proposal",
      idempotencyKey: "k1",
      payloadFingerprint: "fp1",
      baseRevision: 1,
      detail: { args: { title: "T" }, preview: { baseRevision: 1 } },
    });
    expect(await driver.get(`SELECT COUNT(*)::int AS n FROM audit_log_m203107 WHERE id = ?`, [proposal])).toEqual({
      n: 1,
    });
    // The month this kernel checked already, dropped behind its back (another instance whose clock is far ahead):
    // the insert finds no partition, the month is made again and the insert goes through.
    await driver.run(`ALTER TABLE audit_log DETACH PARTITION audit_log_m203107`);
    await driver.run(`DROP TABLE audit_log_m203107`);
    const again = await read(kernel);
    expect(await driver.get(`SELECT COUNT(*)::int AS n FROM audit_log_m203107 WHERE id = ?`, [again])).toEqual({
      n: 1,
    });
  });

  it("version 18 moves the default partition's records to months of their own, online, and drops it", async () => {
    const driver = await fresh();
    const clock = new ManualClock("2026-06-15T00:00:00.000Z");
    await migrate(driver, clock, 14);
    await driver.run(`CREATE TABLE audit_log_m202606 PARTITION OF audit_log FOR VALUES IN (202606)`);
    // Records of months with no partition (copied by migrate-data, or written with a clock far ahead).
    for (const [month, count] of [
      [202403, 3000],
      [203001, 2000],
    ] as const)
      await driver.run(
        `INSERT INTO audit_log (at, tool_name, effect, outcome, month)
         SELECT '${String(month).slice(0, 4)}-${String(month).slice(4)}-02T00:00:00.000Z', 'x', 'read', 'ok', ${month}
         FROM generate_series(1, ${count})`,
      );
    const before = await driver.all<{ id: number; month: number }>(`SELECT id, month FROM audit_log ORDER BY id`);
    expect(await driver.get(`SELECT COUNT(*)::int AS n FROM audit_log_other`)).toEqual({ n: 5000 });
    // An instance of the release before keeps writing this month's records while the migration runs.
    let writing = true;
    let written = 0;
    const writer = (async () => {
      while (writing) {
        await driver.run(
          `INSERT INTO audit_log (at, tool_name, effect, outcome, month) VALUES ('2026-06-15T00:00:00.000Z', 'old', 'read', 'ok', 202606)`,
        );
        written += 1;
      }
    })();
    const applied = await migrate(driver, clock);
    writing = false;
    await writer;
    expect(applied.applied).toContain(18);
    expect(written).toBeGreaterThan(0);
    expect(await driver.get(`SELECT to_regclass('audit_log_other') AS t`)).toEqual({ t: null });
    expect(
      await driver.get(`SELECT partdefid::int AS id FROM pg_partitioned_table WHERE partrelid = 'audit_log'::regclass`),
    ).toEqual({ id: 0 });
    const after = await driver.all<{ id: number; month: number }>(
      `SELECT id, month FROM audit_log WHERE tool_name <> 'old' ORDER BY id`,
    );
    expect(after).toEqual(before);
    expect(await driver.get(`SELECT COUNT(*)::int AS n FROM audit_log_m202403`)).toEqual({ n: 3000 });
    expect(await driver.get(`SELECT COUNT(*)::int AS n FROM audit_log_m203001`)).toEqual({ n: 2000 });
    expect(await driver.get(`SELECT COUNT(*)::int AS n FROM audit_log WHERE tool_name = 'old'`)).toEqual({
      n: written,
    });
  }, 60_000);
});
