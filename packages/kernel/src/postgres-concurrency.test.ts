import { describe, expect, it } from "vitest";
import { migrate, SCHEMA_VERSIONS } from "./migrations";
import type { SqlDriver } from "./sql/driver";
import { openPostgresDriver } from "./sql/postgres-driver";
import { SqlKernel } from "./sql-kernel";
import { freshSchemaName, postgresAvailability } from "./test-databases";
import type { CallIdentity, ExecuteOutcome, ExecuteRequest, KernelCommand } from "./types";

const server = postgresAvailability();

async function migrateTogether(drivers: SqlDriver[]) {
  const results = await Promise.all(drivers.map((driver) => migrate(driver)));
  const versions = await drivers[0]!.all<{ version: number }>(`SELECT version FROM schema_migrations ORDER BY version`);
  return { applied: results.map((r) => r.applied), versions: versions.map((v) => Number(v.version)) };
}

// SQLite needs no such test here: its migrations run inside BEGIN IMMEDIATE, and two drivers on one file in one
// process would block each other's event loop (better-sqlite3 waits synchronously), so that is a multi-process matter.
describe("migrations started together run once", () => {
  it.skipIf(!server.available)("PostgreSQL: four pools on one schema, under the advisory lock", async () => {
    const schema = freshSchemaName("mnote_migrate");
    const drivers = await Promise.all(
      [0, 1, 2, 3].map((i) => openPostgresDriver(server.url, { schema, poolMax: 2, dropSchemaOnClose: i === 0 })),
    );
    try {
      const { applied, versions } = await migrateTogether(drivers);
      const every = [...SCHEMA_VERSIONS];
      expect(applied.filter((a) => a.length > 0)).toEqual([every]);
      expect(versions).toEqual(every);
      // Migrating again is a no-op.
      expect((await migrate(drivers[3]!)).applied).toEqual([]);
    } finally {
      for (const d of drivers.slice(1)) await d.close();
      await drivers[0]!.close();
    }
  });
});

/**
 * Two pools on one database behave like two bridge processes: nothing is shared
 * but the database. Shared idempotency keys must yield one command each, racers
 * on one base revision exactly one winner, and the logs must agree.
 */
describe.skipIf(!server.available)("PostgreSQL: two pools racing on one database", () => {
  it("runs one command per key and lets one racer per revision win", async () => {
    const schema = freshSchemaName("mnote_race");
    const a = await SqlKernel.open(
      await openPostgresDriver(server.url, { schema, poolMax: 4, dropSchemaOnClose: true }),
    );
    const b = await SqlKernel.open(await openPostgresDriver(server.url, { schema, poolMax: 4 }));
    try {
      const owner = (await a.admin.createUser({ id: "owner", name: "Owner" })).id;
      const ws = (await a.admin.createWorkspace({ id: "ws", name: "WS", ownerId: owner })).id;
      const docs = ["doc1", "doc2", "doc3"];
      for (const id of docs) await a.admin.createPage({ id, workspaceId: ws, title: id, createdBy: owner });

      let call = 0;
      const req = (
        documentId: string,
        command: KernelCommand,
        key: string,
        fingerprint: string,
        baseRevision?: number,
      ): ExecuteRequest => {
        const identity: CallIdentity = {
          toolName: command.name === "page.head.updateTitle" ? "mnote.page.update_title" : "mnote.page.save",
          workspaceId: ws,
          documentId,
          actorId: owner,
          tokenId: null,
          holder: "agent",
          sessionId: null,
          runId: "race",
          toolCallId: `call_${++call}`,
          traceId: null,
        };
        return {
          identity,
          command,
          idempotency: { key, fingerprint, expiresAt: "2999-01-01T00:00:00.000Z" },
          ...(baseRevision === undefined ? {} : { baseRevision }),
        };
      };
      const via = (i: number) => (i % 2 === 0 ? a : b);
      const count = (outcomes: ExecuteOutcome[], kind: ExecuteOutcome["kind"]) =>
        outcomes.filter((o) => o.kind === kind).length;

      // 1. Retried writes: 12 keys, 6 callers each (3 per pool), all in flight at once.
      const keys = Array.from({ length: 12 }, (_, i) => `k${i}`);
      const retried = await Promise.all(
        keys.flatMap((key) =>
          Array.from({ length: 6 }, (_, i) =>
            via(i).execute(
              req(
                "doc1",
                { name: "page.body.save", mode: "append", blocks: [{ id: key, type: "paragraph", text: key }] },
                key,
                `fp_${key}`,
              ),
            ),
          ),
        ),
      );
      for (let k = 0; k < keys.length; k++) {
        const mine = retried.slice(k * 6, k * 6 + 6);
        expect(count(mine, "applied")).toBe(1);
        expect(count(mine, "replayed")).toBe(5);
      }
      expect((await a.getPage("doc1"))?.revision).toBe(1 + keys.length);
      expect((await b.getBlocks("doc1")).map((block) => block.id).sort()).toEqual([...keys].sort());

      // 2. One key used on two pages at once: the idempotency scope has no page, so the unique key decides.
      const crossKeys = Array.from({ length: 8 }, (_, i) => `x${i}`);
      const cross = await Promise.all(
        crossKeys.flatMap((key) =>
          ["doc2", "doc3"].map((doc, i) =>
            via(i).execute(req(doc, { name: "page.head.updateTitle", title: key }, key, `fp_${key}`)),
          ),
        ),
      );
      for (let k = 0; k < crossKeys.length; k++) {
        const pair = cross.slice(k * 2, k * 2 + 2);
        expect(count(pair, "applied")).toBe(1);
        expect(count(pair, "replayed")).toBe(1);
      }

      // 3. Racers: 10 saves on one base revision, 5 per pool, three rounds.
      for (let round = 0; round < 3; round++) {
        const base = (await b.getPage("doc1"))!.revision;
        const racers = await Promise.all(
          Array.from({ length: 10 }, (_, i) =>
            via(i).execute(
              req(
                "doc1",
                { name: "page.head.updateTitle", title: `r${round}_${i}` },
                `race_${round}_${i}`,
                `fp_race_${round}_${i}`,
                base,
              ),
            ),
          ),
        );
        expect(count(racers, "applied")).toBe(1);
        expect(count(racers, "revision_conflict")).toBe(9);
        for (const o of racers) if (o.kind === "revision_conflict") expect(o.currentRevision).toBe(base + 1);
        expect((await a.getPage("doc1"))?.revision).toBe(base + 1);
      }

      // 4. The books agree: one command per key, one write audit per command, one revision per command.
      const driver = await openPostgresDriver(server.url, { schema, poolMax: 1 });
      try {
        const perKey = await driver.all<{ k: string; n: number }>(
          `SELECT idempotency_key AS k, COUNT(*) AS n FROM commands GROUP BY idempotency_key HAVING COUNT(*) <> 1`,
        );
        expect(perKey).toEqual([]);
        const commands = await driver.get<{ n: number }>(`SELECT COUNT(*) AS n FROM commands`);
        const audits = await driver.get<{ n: number }>(
          `SELECT COUNT(*) AS n FROM audit_log WHERE effect = 'write' AND outcome = 'ok'`,
        );
        const idem = await driver.get<{ n: number }>(`SELECT COUNT(*) AS n FROM idempotency`);
        const revisions = await driver.get<{ n: number }>(`SELECT SUM(revision - 1) AS n FROM pages`);
        const expected = keys.length + crossKeys.length + 3;
        expect(commands?.n).toBe(expected);
        expect(audits?.n).toBe(expected);
        expect(idem?.n).toBe(expected);
        expect(Number(revisions?.n)).toBe(expected);
      } finally {
        await driver.close();
      }
    } finally {
      await b.close();
      await a.close();
    }
  }, 60_000);
});
