import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { changeChannel, type PageChange } from "./change-feed";
import { openPostgresDriver } from "./sql/postgres-driver";
import { openSqliteDriver } from "./sql/sqlite-driver";
import { SqlKernel } from "./sql-kernel";
import {
  ensurePgliteTemplateSync,
  freshSchemaName,
  openTestPgliteKernel,
  postgresAvailability,
  sharedPglite,
} from "./test-databases";
import type { CallIdentity } from "./types";

/**
 * Decision 0017: the kernel announces every committed change. The same checks run on SQLite, PGlite and a
 * PostgreSQL server; on the server the writer and the listener are two kernels (two pools, as two panel
 * instances would be) on one database.
 */
interface Pair {
  writer: SqlKernel;
  listener: SqlKernel;
  close(): Promise<void>;
}

/**
 * Collects changes; `next` waits for one matching `match`: woken by each change heard (a real wait on a real
 * database), failing after `timeoutMs` when none came.
 */
function collect(kernel: SqlKernel) {
  const heard: PageChange[] = [];
  /** Each answers whether the change it waited for has come (and is then dropped). */
  let waiters: Array<() => boolean> = [];
  const stop = kernel.changes.subscribe((change) => {
    heard.push(change);
    waiters = waiters.filter((woken) => !woken());
  });
  function next(match: (change: PageChange) => boolean, timeoutMs = 5_000): Promise<PageChange> {
    const found = heard.find(match);
    if (found) return Promise.resolve(found);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        waiters = waiters.filter((waiter) => waiter !== woken);
        reject(new Error(`no matching change within ${timeoutMs} ms; heard ${JSON.stringify(heard)}`));
      }, timeoutMs);
      const woken = () => {
        const change = heard.find(match);
        if (!change) return false;
        clearTimeout(timer);
        resolve(change);
        return true;
      };
      waiters.push(woken);
    });
  }
  return { heard, next, stop };
}

/** Resolves once `connected` reports true (at once if it does), woken by the feed's own connection events. */
function waitConnected(kernel: SqlKernel, timeoutMs = 5_000): Promise<void> {
  if (kernel.changes.connected) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      off();
      reject(new Error("the change feed did not connect"));
    }, timeoutMs);
    const off = kernel.changes.onConnectionChange((connected) => {
      if (!connected) return;
      clearTimeout(timer);
      off();
      resolve();
    });
  });
}

function changeFeedSuite(name: string, openPair: () => Promise<Pair>) {
  describe(`change feed: ${name}`, () => {
    let pair: Pair;
    let ws: string;
    let doc: string;
    let owner: string;
    let counter = 0;
    const identity = (toolName = "mnote.page.updateTitle"): CallIdentity => ({
      toolName,
      workspaceId: ws,
      documentId: doc,
      actorId: owner,
      tokenId: null,
      holder: "agent",
      sessionId: null,
      runId: "run",
      toolCallId: `call_${++counter}`,
      traceId: null,
    });

    beforeAll(async () => {
      pair = await openPair();
      const suffix = Math.random().toString(36).slice(2, 8);
      owner = (await pair.writer.admin.createUser({ id: `owner_${suffix}`, name: "Owner" })).id;
      ws = (await pair.writer.admin.createWorkspace({ id: `ws_${suffix}`, name: "WS", ownerId: owner })).id;
      doc = (
        await pair.writer.admin.createPage({
          id: `doc_${suffix}`,
          workspaceId: ws,
          title: "Plan",
          blocks: [],
          createdBy: owner,
        })
      ).id;
    }, 60_000);
    afterAll(() => pair.close(), 30_000);

    it("announces a committed write with its page and new revision, to the writer's process and the listener's", async () => {
      const listener = collect(pair.listener);
      const writer = collect(pair.writer);
      try {
        await waitConnected(pair.listener);
        await waitConnected(pair.writer);
        const outcome = await pair.writer.execute({
          identity: identity(),
          command: { name: "page.head.updateTitle", title: "Renamed" },
          idempotency: { key: `k${++counter}`, fingerprint: "fp", expiresAt: "2999-01-01T00:00:00.000Z" },
        });
        expect(outcome.kind).toBe("applied");
        const revision = outcome.kind === "applied" ? outcome.revisionAfter : -1;
        const expected = { workspaceId: ws, documentId: doc, kind: "write", revision, announcedAt: expect.any(Number) };
        expect(await listener.next((c) => c.kind === "write" && c.documentId === doc)).toEqual(expected);
        expect(await writer.next((c) => c.kind === "write" && c.documentId === doc)).toEqual(expected);
      } finally {
        listener.stop();
        writer.stop();
      }
    }, 20_000);

    it("announces a proposal and a plain audit record with their audit ids", async () => {
      const listener = collect(pair.listener);
      try {
        await waitConnected(pair.listener);
        const proposalId = await pair.writer.appendAudit({
          identity: identity(),
          effect: "dry_run",
          outcome: "proposal",
          idempotencyKey: `k${++counter}`,
          payloadFingerprint: "fp",
          detail: { preview: "x" },
        });
        const readId = await pair.writer.appendAudit({
          identity: identity("mnote.page.get"),
          effect: "read",
          outcome: "ok",
        });
        expect(await listener.next((c) => c.auditId === proposalId)).toEqual({
          workspaceId: ws,
          documentId: doc,
          kind: "proposal",
          auditId: proposalId,
          announcedAt: expect.any(Number),
        });
        expect(await listener.next((c) => c.auditId === readId)).toEqual({
          workspaceId: ws,
          documentId: doc,
          kind: "audit",
          auditId: readId,
          announcedAt: expect.any(Number),
        });
      } finally {
        listener.stop();
      }
    }, 20_000);

    it("announces nothing for a transaction that rolls back, and nothing before a commit", async () => {
      const listener = collect(pair.listener);
      try {
        await waitConnected(pair.listener);
        const writer = pair.writer;
        const rolledBack = { workspaceId: ws, documentId: doc, kind: "audit" as const, auditId: -1 };
        await expect(
          writer.changes.driver.transaction(async (tx) => {
            await writer.changes.announce(tx, rolledBack);
            throw new Error("roll back");
          }),
        ).rejects.toThrow("roll back");
        const committed = { workspaceId: ws, documentId: doc, kind: "audit" as const, auditId: -2 };
        const later = { workspaceId: ws, documentId: doc, kind: "audit" as const, auditId: -3 };
        await writer.changes.driver.transaction(async (tx) => {
          await writer.changes.announce(tx, committed);
          // Still inside the transaction: nobody may have heard of it yet. A change announced outside it, after it,
          // is heard first: changes arrive in the order they commit, so -2 would have come before -3 had it leaked.
          await writer.changes.announce(writer.changes.driver, later);
          await listener.next((c) => c.auditId === -3);
          expect(listener.heard.filter((c) => c.auditId === -2)).toEqual([]);
        });
        // The committed one arrives; the rolled-back one, announced first, never did.
        await listener.next((c) => c.auditId === -2);
        expect(listener.heard.filter((c) => c.auditId === -1)).toEqual([]);
      } finally {
        listener.stop();
      }
    }, 20_000);

    it("stops calling a listener once it unsubscribes", async () => {
      const gone = collect(pair.listener);
      gone.stop();
      const still = collect(pair.listener);
      try {
        await waitConnected(pair.listener);
        const id = await pair.writer.appendAudit({
          identity: identity("mnote.page.get"),
          effect: "read",
          outcome: "ok",
        });
        await still.next((c) => c.auditId === id);
        expect(gone.heard).toEqual([]);
      } finally {
        still.stop();
      }
    }, 20_000);
  });
}

changeFeedSuite("SQLite file (one process, in-process emitter)", async () => {
  const kernel = await SqlKernel.open(openSqliteDriver(join(mkdtempSync(join(tmpdir(), "mnote-feed-")), "feed.db")));
  return { writer: kernel, listener: kernel, close: () => kernel.close() };
});

describe("change feed: two SQLite kernels on one file (as the bridge and the panel of `npm start`)", () => {
  it("the listening kernel hears the other one's commits through its tail of the audit log, and stops looking when nobody listens", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "mnote-feed-")), "shared.db");
    const bridge = await SqlKernel.open(openSqliteDriver(file));
    const panel = await SqlKernel.open(openSqliteDriver(file));
    try {
      const owner = (await bridge.admin.createUser({ name: "Owner" })).id;
      const ws = (await bridge.admin.createWorkspace({ name: "WS", ownerId: owner })).id;
      const doc = (await bridge.admin.createPage({ workspaceId: ws, title: "Plan", blocks: [], createdBy: owner })).id;
      const earlier = await bridge.appendAudit({
        identity: {
          toolName: "mnote.page.get",
          workspaceId: ws,
          documentId: doc,
          actorId: owner,
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
      const heard = collect(panel);
      await waitConnected(panel);
      const identity = {
        toolName: "mnote.page.update_title",
        workspaceId: ws,
        documentId: doc,
        actorId: owner,
        tokenId: null,
        holder: "agent" as const,
        sessionId: null,
        runId: null,
        toolCallId: null,
        traceId: null,
      };
      const proposalId = await bridge.appendAudit({
        identity,
        effect: "dry_run",
        outcome: "proposal",
        idempotencyKey: "k1",
        payloadFingerprint: "fp",
        detail: { x: 1 },
      });
      const written = await bridge.execute({
        identity,
        command: { name: "page.head.updateTitle", title: "New" },
        idempotency: { key: "k1", fingerprint: "fp", expiresAt: "2999-01-01T00:00:00.000Z" },
      });
      expect(written.kind).toBe("applied");
      expect(await heard.next((c) => c.auditId === proposalId)).toEqual({
        workspaceId: ws,
        documentId: doc,
        kind: "proposal",
        auditId: proposalId,
        announcedAt: expect.any(Number),
      });
      expect(await heard.next((c) => c.kind === "write")).toMatchObject({
        workspaceId: ws,
        documentId: doc,
        kind: "write",
        revision: 2,
      });
      // What was committed before anyone listened is not replayed.
      expect(heard.heard.map((c) => c.auditId)).not.toContain(earlier);
      heard.stop();
      await expect.poll(() => panel.changes.connected, { timeout: 2_000 }).toBe(false);
    } finally {
      await bridge.close();
      await panel.close();
    }
  }, 20_000);
});

ensurePgliteTemplateSync();
describe("PGlite", () => {
  beforeAll(() => sharedPglite().then(() => undefined), 120_000);
  changeFeedSuite("PGlite (in-process emitter)", async () => {
    const kernel = await openTestPgliteKernel();
    return { writer: kernel, listener: kernel, close: () => kernel.close() };
  });
});

const server = postgresAvailability();
describe.skipIf(!server.available)(`PostgreSQL server${server.available ? "" : " (skipped: no server)"}`, () => {
  const schema = freshSchemaName("mnote_feed");
  const openKernelIn = async (name: string) =>
    SqlKernel.open(await openPostgresDriver(server.url, { schema: name, poolMax: 2 }));

  changeFeedSuite(
    "PostgreSQL (NOTIFY in the transaction, LISTEN per process; two kernels on one database)",
    async () => {
      const writer = await openKernelIn(schema);
      const listener = await openKernelIn(schema);
      return {
        writer,
        listener,
        close: async () => {
          await writer.close();
          await listener.close();
          const admin = new pg.Client({ connectionString: server.url });
          await admin.connect();
          await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
          await admin.end();
        },
      };
    },
  );

  describe("the LISTEN connection", () => {
    const other = freshSchemaName("mnote_feed");
    let admin: pg.Client;
    let a: SqlKernel;
    let b: SqlKernel;
    const listenPids = async (name: string) =>
      (
        await admin.query<{ pid: number }>(
          `SELECT pid FROM pg_stat_activity WHERE query = $1 AND datname = current_database()`,
          [`LISTEN "${changeChannel(name)}"`],
        )
      ).rows.map((row) => row.pid);

    beforeAll(async () => {
      admin = new pg.Client({ connectionString: server.url });
      await admin.connect();
      a = await openKernelIn(other);
      b = await openKernelIn(other);
    }, 60_000);
    afterAll(async () => {
      await a.close();
      await b.close();
      await admin.query(`DROP SCHEMA IF EXISTS "${other}" CASCADE`);
      await admin.end();
    }, 30_000);

    it("hears only its own schema: a kernel in another schema of the database hears nothing", async () => {
      const stray = collect(b);
      try {
        await waitConnected(b);
        const elsewhereSchema = freshSchemaName("mnote_feed");
        const elsewhere = await openKernelIn(elsewhereSchema);
        await elsewhere.changes.announce(elsewhere.changes.driver, {
          workspaceId: "w",
          documentId: "d",
          kind: "audit",
          auditId: -9,
        });
        await a.changes.announce(a.changes.driver, { workspaceId: "w", documentId: "d", kind: "audit", auditId: -10 });
        await stray.next((c) => c.auditId === -10);
        expect(stray.heard.map((c) => c.auditId)).not.toContain(-9);
        await elsewhere.close();
        await admin.query(`DROP SCHEMA IF EXISTS "${elsewhereSchema}" CASCADE`);
      } finally {
        stray.stop();
      }
    }, 30_000);

    it("comes back after the server kills it, and changes flow again", async () => {
      const heard = collect(b);
      const states: boolean[] = [];
      let cameBack!: () => void;
      const back = new Promise<void>((resolve) => (cameBack = resolve));
      const offState = b.changes.onConnectionChange((connected) => {
        states.push(connected);
        if (connected && states.includes(false)) cameBack();
      });
      try {
        await waitConnected(b);
        const [pid] = await listenPids(other);
        expect(pid).toBeDefined();
        await admin.query(`SELECT pg_terminate_backend($1)`, [pid]);
        // Lost, then back after the feed's own retry delay (LISTEN_RETRY_MS): its events say when, nothing polls.
        await back;
        expect(states).toEqual([false, true]);
        const id = await a.appendAudit({
          identity: {
            toolName: "mnote.page.get",
            workspaceId: "w",
            documentId: "d",
            actorId: "u",
            tokenId: null,
            holder: null,
            sessionId: null,
            runId: null,
            toolCallId: null,
            traceId: null,
          },
          effect: "read",
          outcome: "ok",
        });
        await heard.next((c) => c.auditId === id);
      } finally {
        offState();
        heard.stop();
      }
    }, 30_000);

    it("is closed with the kernel", async () => {
      const c = await openKernelIn(other);
      const stop = c.changes.subscribe(() => undefined);
      await waitConnected(c);
      const before = (await listenPids(other)).length;
      stop();
      await c.close();
      const deadline = Date.now() + 5_000;
      while ((await listenPids(other)).length !== before - 1) {
        if (Date.now() > deadline) throw new Error("the LISTEN connection outlived its kernel");
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }, 30_000);
  });
});
