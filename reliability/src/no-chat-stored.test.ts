import { startBridge, type RunningBridge } from "@mnote/hermes-bridge";
import { followRun, HermesClient, type NumberedRunLine, pumpRun, type RunEnd, startAskRun } from "@mnote/hermes-runs";
import { ManualClock, openSqliteDriver, SqlKernel, type SqlDriver } from "@mnote/kernel";
import { openTestPostgresDriver, postgresAvailability } from "@mnote/kernel/conformance";
import { createCaller, createToolsContext } from "@mnote/tools";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type HermesStandIn, startHermesStandIn } from "../../e2e/hermes-standin/start";
import { captureLogger } from "./support";

/**
 * Issue 38: mnote keeps no chat. A two-turn conversation goes through the Hermes stand-in (its scripted model
 * calls the real plugin, bridge, router and database) exactly as the panel runs it (`startAskRun`, `pumpRun`,
 * `followRun`); then the grace is waited out on the kernel's clock and the panel's sweep runs. After it, no table
 * of the database holds the person's words or the model's: only the conversation's ids and the audit trail.
 */
const GRACE_MS = 60_000;

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });

/**
 * Every table of the database, every cell, as text: where a run's words would be if any were left — as they
 * are, or escaped inside a JSON line (how the run lines hold them).
 */
async function tablesHolding(db: SqlDriver, dialect: "sqlite" | "postgres", needle: string): Promise<string[]> {
  const tables =
    dialect === "sqlite"
      ? await db.all<{ name: string }>(`SELECT name FROM sqlite_master WHERE type = 'table'`)
      : await db.all<{ name: string }>(
          `SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema()`,
        );
  expect(tables.map((table) => table.name)).toEqual(expect.arrayContaining(["ask_run_events", "audit_log", "pages"]));
  const forms = [needle, JSON.stringify(needle).slice(1, -1)];
  const holding: string[] = [];
  for (const { name } of tables) {
    const rows = await db.all<Record<string, unknown>>(`SELECT * FROM "${name}"`);
    const cells = rows.flatMap((row) => Object.values(row).map((value) => String(value)));
    if (cells.some((cell) => forms.some((form) => cell.includes(form)))) holding.push(name);
  }
  return holding;
}

const databases: {
  name: string;
  dialect: "sqlite" | "postgres";
  open: () => Promise<{ driver: SqlDriver; file: string | null }>;
  skip: boolean;
}[] = [
  {
    name: "SQLite",
    dialect: "sqlite",
    // A file (WAL, two connections), as deployed: the words must leave the files too, not only the tables.
    open: async () => {
      const file = join(mkdtempSync(join(tmpdir(), "mnote-no-chat-")), "mnote.db");
      return { driver: openSqliteDriver(file), file };
    },
    skip: false,
  },
  {
    name: "PostgreSQL",
    dialect: "postgres",
    open: async () => ({ driver: await openTestPostgresDriver({}), file: null }),
    skip: !postgresAvailability().available,
  },
];

describe.each(databases)("no chat stored: $name", ({ dialect, open, skip }) => {
  let kernel: SqlKernel | null = null;
  let bridge: RunningBridge | null = null;
  let hermesProcess: HermesStandIn | null = null;

  afterEach(async () => {
    await hermesProcess?.stop();
    await bridge?.close();
    await kernel?.close();
  });

  it.skipIf(skip)("after a conversation and its grace, no table holds the run's words", async () => {
    const clock = new ManualClock(Date.now());
    const { driver, file } = await open();
    kernel = await SqlKernel.open(driver, { clock });
    const suffix = Math.random().toString(36).slice(2, 8);
    const MARKER = `zebraquartz${suffix}`;
    const { admin } = kernel;
    const owner = (await admin.createUser({ id: `owner_${suffix}`, name: "Olga" })).id;
    const ws = (
      await admin.createWorkspace({ id: `ws_${suffix}`, name: "Team", ownerId: owner, approvalRequired: false })
    ).id;
    const page = (
      await admin.createPage({
        id: `page_${suffix}`,
        workspaceId: ws,
        title: "Launch plan",
        blocks: [{ id: "p1", type: "paragraph", text: "Ship on Friday" }],
        createdBy: owner,
      })
    ).id;
    const scopes = ["page.read", "page.write", "artifact.write"] as const;
    const agentToken = (
      await admin.createToken({ userId: owner, holder: "agent", scopes: [...scopes], label: "hermes" })
    ).token;
    const personToken = (
      await admin.createToken({ userId: owner, holder: "person", scopes: [...scopes], label: "panel" })
    ).token;
    bridge = await startBridge({
      kernel,
      port: 0,
      host: "127.0.0.1",
      logger: captureLogger().logger,
      rateLimit: null,
      authFailureLimit: null,
      env: {},
    });
    const key = `standin-key-${suffix}-0123456789`;
    hermesProcess = await startHermesStandIn({ port: await freePort(), key, bridgeUrl: bridge.url, token: agentToken });
    const hermes = new HermesClient({ url: hermesProcess.url, apiKey: key });
    const caller = createCaller(createToolsContext({ kernel, authorization: `Bearer ${personToken}`, door: "panel" }));

    // The person's reads of their run's lines, through the router as the door reads them.
    const reader = {
      readRun: (runId: string, after: number, limit: number) => caller.panel.ask.lines({ runId, after, limit }),
    };
    // One turn as the panel's door runs it: the router's start, Hermes's run, the router's record, the pump, a reader.
    const turn = async (input: string, sessionId?: string) => {
      const started = await caller.panel.ask.start({ workspaceId: ws, documentId: page, sessionId });
      const { runId } = await startAskRun({
        hermes,
        records: { record: (run) => caller.panel.ask.record(run) },
        asked: started,
        input,
        followUp: sessionId !== undefined,
      });
      const end: RunEnd = await pumpRun({ hermes, store: kernel!.ask, runId });
      const lines: NumberedRunLine[] = [];
      for await (const line of followRun({
        reader,
        hermes,
        runId,
        after: 0,
        reload: false,
        wait: () => Promise.reject(new Error("the run has ended: nothing to wait for")),
      }))
        lines.push(line);
      const output = lines.flatMap((line) => (line.type === "completed" ? [line.output] : []));
      return { sessionId: started.sessionId, end, lines, output: output[0] ?? "" };
    };

    const first = await turn(`Summarise this page for the ${MARKER} review`);
    expect(first.end.outcome).toBe("completed");
    expect(first.output).toBe('"Launch plan" is at revision 1 with 1 blocks.');
    const second = await turn("What did I ask before?", first.sessionId);
    expect(second.end.outcome).toBe("completed");
    expect(second.output).toBe(`Earlier you asked: Summarise this page for the ${MARKER} review`);

    // While a reader may still follow the runs, their lines are there (so the search below can find words).
    expect(await tablesHolding(driver, dialect, MARKER)).toEqual(["ask_run_events"]);
    expect(await tablesHolding(driver, dialect, first.output)).toEqual(["ask_run_events"]);
    // The grace is not over yet: nothing goes.
    clock.advance(GRACE_MS);
    expect(await kernel.ask.sweepRuns({ graceMs: GRACE_MS })).toEqual({ lines: 0, runs: 0 });
    clock.advance(1);
    const swept = await kernel.ask.sweepRuns({ graceMs: GRACE_MS });
    expect(swept.lines).toBe(first.lines.length + second.lines.length);

    for (const words of [MARKER, first.output, second.output, "What did I ask before?"])
      expect(await tablesHolding(driver, dialect, words)).toEqual([]);
    if (file) {
      // Nor in SQLite's files: deleted rows are zeroed and the write-ahead log is reset after the sweep.
      const files = [file, `${file}-wal`].filter((path) => existsSync(path));
      expect(files).toContain(file);
      for (const path of files) expect(readFileSync(path).includes(MARKER), path).toBe(false);
    }
    // What stays is the audit trail of the run's calls (the page reads, under the conversation) and ids.
    const trail = await driver.all<{ tool_name: string }>(`SELECT tool_name FROM audit_log WHERE session_id = ?`, [
      first.sessionId,
    ]);
    expect(trail.map((row) => row.tool_name)).toEqual(["mnote.page.get"]);
    // A reader coming back to the ended run hears Hermes's word on how it ended, not its text.
    const again: NumberedRunLine[] = [];
    for await (const line of followRun({
      reader,
      hermes,
      runId: (await kernel.ask.latestRun(first.sessionId))!.runId,
      after: 0,
      reload: true,
      wait: () => Promise.reject(new Error("no waiting")),
    }))
      again.push(line);
    expect(again).toEqual([{ type: "status", status: "completed", error: null, seq: Number.MAX_SAFE_INTEGER }]);
  });
});
