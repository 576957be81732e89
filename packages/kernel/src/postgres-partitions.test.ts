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

  it("keeps the default partition empty by creating months ahead, and a month's drop leaves other months alone", async () => {
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
      "audit_log_other",
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
    // Retention of 30 days at 2026-03-02: January is past, February is not.
    const sweep = await kernel.housekeeping.sweepAudit(clock.now(), { days: 30 });
    expect(sweep).toMatchObject({ partitionsDropped: 1, droppedRecords: 1, removed: 0, partitionsCreated: 2 });
    expect(await months()).toEqual([
      "audit_log_before_months",
      "audit_log_kept",
      "audit_log_m202602",
      "audit_log_m202603",
      "audit_log_m202604",
      "audit_log_m202605",
      "audit_log_other",
    ]);
    expect((await kernel.listAudit({ documentId: "doc" })).map((r) => r.id)).toEqual([february]);
    expect(await driver.get(`SELECT COUNT(*) AS n FROM audit_log_other`)).toEqual({ n: 0 });
  });
});
