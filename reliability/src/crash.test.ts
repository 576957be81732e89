import { type ChildProcess, spawn } from "node:child_process";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import { compiledEntry } from "@mnote/process/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createWorld, type World } from "./support";

/**
 * Crash: a writer process (crash-writer.ts) appends through callTool on a SQLite file
 * and is killed with SIGKILL at a random moment, 30 times, each run reopening the same
 * file. After every kill the file must be intact and hold exactly what the writer was
 * told: every acknowledged write, one command, one write audit and one revision step per
 * write, nothing half-done and no orphan rows.
 */

const KILLS = 30;
const WRITER = fileURLToPath(new URL("./crash-writer.ts", import.meta.url));
const PACKAGE_DIR = dirname(dirname(WRITER));
// A failing run can be replayed: RELIABILITY_SEED=<seed printed below> npx vitest run src/crash.test.ts
const SEED = Number(process.env.RELIABILITY_SEED ?? Math.floor(Math.random() * 2 ** 31));

function mulberry32(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const random = mulberry32(SEED);

type Ack =
  | { kind: "save"; commandId: string; revision: number; blockId: string }
  | { kind: "note"; commandId: string; nodeId: string; edgeId: string };

let world: World;
/** crash-writer.ts compiled once: 30 starts through tsx spent a CPU-second each on its loader before writing. */
let writerEntry: string;
const acknowledged: Ack[] = [];
/** Writes acknowledged per run, for the summary line. */
const perRun: number[] = [];
const INITIAL_BLOCKS = 2;

beforeAll(async () => {
  console.log(`crash suite seed: ${SEED}`);
  writerEntry = await compiledEntry(WRITER);
  world = await createWorld({ file: true });
  // The writer opens the file itself; the test only reads it between runs.
  await world.kernel.close();
});
afterAll(async () => {
  await world?.close().catch(() => undefined);
});

/** Start a writer and collect its acknowledged lines as they arrive. */
function startWriter(run: number) {
  const child: ChildProcess = spawn(process.execPath, [writerEntry, world.path, String(run)], {
    cwd: PACKAGE_DIR,
    env: {
      ...process.env,
      MNOTE_CRASH_TOKEN: world.tokens.owner,
      MNOTE_CRASH_WS: world.ids.ws,
      MNOTE_CRASH_PAGE: world.ids.page,
      MNOTE_CRASH_ACTOR: world.ids.owner,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const acks: Ack[] = [];
  let buffer = "";
  let stderr = "";
  let readyResolve: () => void;
  const ready = new Promise<void>((resolve) => (readyResolve = resolve));
  child.stdout!.on("data", (chunk: Buffer) => {
    buffer += chunk.toString("utf8");
    let newline: number;
    while ((newline = buffer.indexOf("\n")) >= 0) {
      const line = JSON.parse(buffer.slice(0, newline)) as Ack | { kind: "ready" } | { kind: "error"; error: unknown };
      buffer = buffer.slice(newline + 1);
      if (line.kind === "ready") readyResolve!();
      else if (line.kind === "error") stderr += `writer error: ${JSON.stringify(line.error)}\n`;
      else acks.push(line);
    }
  });
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  // 'close': the process is gone and its pipes are drained, so every printed line has been read.
  const closed = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("close", (code, signal) => resolve({ code, signal })),
  );
  return { child, acks, ready, closed, stderr: () => stderr };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function verify(path: string) {
  const db = new Database(path);
  try {
    db.pragma("journal_mode = WAL");
    const one = <T>(sql: string, ...params: unknown[]) => db.prepare(sql).get(...params) as T;
    const count = (sql: string, ...params: unknown[]) =>
      (db
        .prepare(sql)
        .pluck()
        .get(...params) as number) ?? 0;

    expect(db.pragma("integrity_check")).toEqual([{ integrity_check: "ok" }]);
    expect(db.pragma("foreign_key_check")).toEqual([]);

    // Every write the writer saw acknowledged, in any run so far, is there with its rows.
    for (const ack of acknowledged) {
      const command = one<{ name: string; revision_after: number } | undefined>(
        `SELECT name, revision_after FROM commands WHERE id = ?`,
        ack.commandId,
      );
      expect(command, `acknowledged command ${ack.commandId} is missing`).toBeDefined();
      if (ack.kind === "save") {
        expect(command!.name).toBe("page.body.save");
        expect(command!.revision_after).toBe(ack.revision);
        expect(count(`SELECT COUNT(*) FROM blocks WHERE document_id = ? AND id = ?`, world.ids.page, ack.blockId)).toBe(
          1,
        );
      } else {
        expect(command!.name).toBe("artifact.aiNote.create");
        expect(count(`SELECT COUNT(*) FROM nodes WHERE id = ? AND command_id = ?`, ack.nodeId, ack.commandId)).toBe(1);
        expect(count(`SELECT COUNT(*) FROM edges WHERE id = ? AND to_node_id = ?`, ack.edgeId, ack.nodeId)).toBe(1);
      }
    }

    // commands = write audits = idempotency records, one each; revision steps = page-changing commands.
    const commands = count(`SELECT COUNT(*) FROM commands`);
    expect(count(`SELECT COUNT(*) FROM audit_log WHERE effect = 'write' AND outcome = 'ok'`)).toBe(commands);
    expect(
      count(
        `SELECT COUNT(*) FROM commands c WHERE (SELECT COUNT(*) FROM audit_log a WHERE a.command_id = c.id AND a.effect = 'write') <> 1`,
      ),
    ).toBe(0);
    expect(count(`SELECT COUNT(*) FROM idempotency`)).toBe(commands);
    const page = one<{ revision: number; block_count: number }>(
      `SELECT revision, block_count FROM pages WHERE id = ?`,
      world.ids.page,
    );
    const pageChanging = count(
      `SELECT COUNT(*) FROM commands WHERE document_id = ? AND revision_after > revision_before`,
      world.ids.page,
    );
    const saves = count(
      `SELECT COUNT(*) FROM commands WHERE document_id = ? AND name = 'page.body.save'`,
      world.ids.page,
    );
    expect(page.revision - 1).toBe(pageChanging);
    expect(pageChanging).toBe(saves);
    // The revision chain has no gap and no fork: 1 → 2 → … → page.revision.
    const chain = db
      .prepare(
        `SELECT revision_before, revision_after FROM commands WHERE document_id = ? AND revision_after > revision_before ORDER BY revision_after`,
      )
      .all(world.ids.page) as Array<{ revision_before: number; revision_after: number }>;
    chain.forEach((step, i) => expect(step).toEqual({ revision_before: i + 1, revision_after: i + 2 }));
    // The body: the seeded blocks plus one per save, at positions 0..n-1, matching the page's block count.
    const body = one<{ n: number; positions: number; lo: number; hi: number }>(
      `SELECT COUNT(*) AS n, COUNT(DISTINCT position) AS positions, MIN(position) AS lo, MAX(position) AS hi FROM blocks WHERE document_id = ?`,
      world.ids.page,
    );
    expect(body.n).toBe(INITIAL_BLOCKS + saves);
    expect(body).toEqual({ n: body.n, positions: body.n, lo: 0, hi: body.n - 1 });
    expect(page.block_count).toBe(body.n);
    // The AI notes: one node and one edge per note command.
    const notes = count(`SELECT COUNT(*) FROM commands WHERE name = 'artifact.aiNote.create'`);
    expect(count(`SELECT COUNT(*) FROM nodes WHERE kind = 'ai_note'`)).toBe(notes);
    expect(count(`SELECT COUNT(*) FROM edges`)).toBe(notes);

    // No orphans.
    expect(count(`SELECT COUNT(*) FROM blocks b LEFT JOIN pages p ON p.id = b.document_id WHERE p.id IS NULL`)).toBe(0);
    expect(
      count(`SELECT COUNT(*) FROM idempotency i LEFT JOIN commands c ON c.id = i.command_id WHERE c.id IS NULL`),
    ).toBe(0);
    expect(count(`SELECT COUNT(*) FROM nodes n LEFT JOIN commands c ON c.id = n.command_id WHERE c.id IS NULL`)).toBe(
      0,
    );
    expect(count(`SELECT COUNT(*) FROM nodes n LEFT JOIN pages p ON p.id = n.document_id WHERE p.id IS NULL`)).toBe(0);
    expect(count(`SELECT COUNT(*) FROM edges e LEFT JOIN nodes n ON n.id = e.to_node_id WHERE n.id IS NULL`)).toBe(0);
    expect(
      count(`SELECT COUNT(*) FROM edges e LEFT JOIN pages p ON p.id = e.from_document_id WHERE p.id IS NULL`),
    ).toBe(0);
    expect(
      count(
        `SELECT COUNT(*) FROM audit_log a LEFT JOIN commands c ON c.id = a.command_id WHERE a.command_id IS NOT NULL AND c.id IS NULL`,
      ),
    ).toBe(0);
    return { commands, revision: page.revision };
  } finally {
    db.close();
  }
}

describe(`crash: writer killed with SIGKILL ${KILLS} times`, () => {
  for (let run = 1; run <= KILLS; run++) {
    it(`kill ${run}: the file is intact and holds every acknowledged write`, async () => {
      const writer = startWriter(run);
      // Most kills land while writes are in flight; every sixth anywhere from spawn on (start-up, open, first writes).
      const early = run % 6 === 0;
      if (early) {
        await Promise.race([sleep(Math.floor(random() * 1500)), writer.closed]);
      } else {
        await Promise.race([writer.ready, writer.closed]);
        await sleep(Math.floor(random() * 250));
      }
      writer.child.kill("SIGKILL");
      const exit = await writer.closed;
      expect(exit.signal, `the writer ended on its own: ${writer.stderr()}`).toBe("SIGKILL");
      acknowledged.push(...writer.acks);
      const state = verify(world.path);
      // Nothing else writes this file: the commands are the acknowledged writes plus, per run, at most the one
      // that committed before the kill but whose line was never printed.
      expect(state.commands).toBeGreaterThanOrEqual(acknowledged.length);
      expect(state.commands - acknowledged.length).toBeLessThanOrEqual(run);
      perRun.push(writer.acks.length);
    });
  }

  it("the runs acknowledged writes, and the crashes lost none of them", () => {
    console.log(
      `crash suite: ${acknowledged.length} acknowledged writes over ${KILLS} kills (per run: ${perRun.join(" ")})`,
    );
    expect(acknowledged.length).toBeGreaterThan(KILLS);
  });
});
