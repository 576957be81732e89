import { randomUUID } from "node:crypto";
import { join } from "node:path";
import Database from "better-sqlite3";
import { openSqliteDriver, SqlKernel, WalCheckpoints } from "@mnote/kernel";
import { fmtPct, fmtRate, median, now, percentile, roundOrder, table } from "./stats";
import { assertOk, type BenchWorld, benchWorld, paragraphs, tempDir } from "./world";

export interface FloorOptions {
  rounds: number;
  writesPerRound: number;
}

/**
 * The floor: the rows one `page.save` append (one block) leaves behind, written
 * straight on better-sqlite3 with prepared statements, one transaction each, and the
 * kernel's pragmas (WAL, synchronous=NORMAL, foreign keys on):
 * the page row (revision, block count, updated_at), the block, the command row, the
 * idempotency row and the write's audit row.
 */
export async function openFloor(options: { sqliteCheckpoints?: boolean } = {}) {
  const dir = tempDir("floor");
  const path = join(dir, "floor.db");
  // The kernel creates the schema and the page; after that only raw statements touch the file.
  const kernel = await SqlKernel.open(openSqliteDriver(path));
  await kernel.admin.createUser({ id: "floor_owner", name: "Floor" });
  await kernel.admin.createWorkspace({
    id: "floor_ws",
    name: "Floor",
    ownerId: "floor_owner",
    approvalRequired: false,
  });
  await kernel.close();

  const db = new Database(path);
  db.pragma("busy_timeout = 5000");
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
  db.pragma("foreign_keys = ON");
  // And the kernel's checkpoints (decision 0051): the worker copies the WAL back, the connection itself only at
  // WRITER_WAL_PAGES. Left to SQLite's default, the floor would pay two fsyncs every ~50 writes on its own thread
  // (its mean write 150 µs against a median of 72 µs, 2026-12-05) that the router no longer pays.
  // `sqliteCheckpoints`: the same floor with SQLite's own checkpoints, for the table's last row.
  const checkpoints = options.sqliteCheckpoints
    ? null
    : new WalCheckpoints(path, (pages) => db.pragma(`wal_autocheckpoint = ${pages}`), 5000);
  const createPage = db.prepare(
    `INSERT INTO pages (id, workspace_id, title, is_private, options, revision, block_count, created_by, created_at, updated_at)
     VALUES (?, 'floor_ws', 'Floor page', 0, '{}', 1, 0, 'floor_owner', ?, ?)`,
  );
  const insertBlock = db.prepare(
    `INSERT INTO blocks (document_id, id, position, type, text, attrs) VALUES (?, ?, ?, ?, ?, ?)`,
  );
  const updatePage = db.prepare(`UPDATE pages SET revision = ?, block_count = ?, updated_at = ? WHERE id = ?`);
  const insertCommand = db.prepare(
    `INSERT INTO commands (id, name, tool_name, workspace_id, document_id, actor_id, token_id, holder, session_id, run_id,
       tool_call_id, trace_id, payload_fingerprint, idempotency_key, revision_before, revision_after, undo, created_at)
     VALUES (?, 'page.body.save', 'mnote.page.save', 'floor_ws', ?, 'floor_owner', 'tok_floor', 'person', 'bench_session',
       'bench_run', ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const insertIdempotency = db.prepare(
    `INSERT INTO idempotency (workspace_id, actor_id, tool_name, key, fingerprint, command_id, result, created_at, expires_at)
     VALUES ('floor_ws', 'floor_owner', 'mnote.page.save', ?, ?, ?, ?, ?, ?)`,
  );
  const insertAudit = db.prepare(
    `INSERT INTO audit_log (at, tool_name, workspace_id, document_id, actor_id, token_id, holder, session_id, run_id,
       tool_call_id, trace_id, effect, outcome, error_code, command_id, idempotency_key, payload_fingerprint, base_revision,
       detail, duration_ms)
     VALUES (?, 'mnote.page.save', 'floor_ws', ?, 'floor_owner', 'tok_floor', 'person', 'bench_session', 'bench_run', ?, ?,
       'write', 'ok', NULL, ?, ?, ?, NULL, '{"diff":[{"op":"append","blocks":1}]}', NULL)`,
  );
  const fingerprint = "f".repeat(64);
  let pages = 0;
  let writes = 0;
  const state = { page: "", revision: 1, blocks: 0 };
  const block = paragraphs(1)[0]!;

  const write = db.transaction(() => {
    const n = ++writes;
    const at = new Date().toISOString();
    const commandId = `cmd_${randomUUID().replaceAll("-", "")}`;
    const key = `floor_key_${n}`;
    const revisionAfter = state.revision + 1;
    insertBlock.run(state.page, `fb${n}`, state.blocks, block.type, block.text, "{}");
    updatePage.run(revisionAfter, state.blocks + 1, at, state.page);
    insertCommand.run(
      commandId,
      state.page,
      `floor_call_${n}`,
      `floor_trace_${n}`,
      fingerprint,
      key,
      state.revision,
      revisionAfter,
      `{"truncateTo":${state.blocks}}`,
      at,
    );
    insertIdempotency.run(
      key,
      fingerprint,
      commandId,
      `{"commandName":"page.body.save","revision":${revisionAfter}}`,
      at,
      new Date(Date.now() + 86_400_000).toISOString(),
    );
    insertAudit.run(at, state.page, `floor_call_${n}`, `floor_trace_${n}`, commandId, key, fingerprint);
    state.revision = revisionAfter;
    state.blocks++;
  });

  return {
    /** A fresh page with `blocks` blocks, as the router side gets. */
    newPage(blocks: number) {
      const at = new Date().toISOString();
      state.page = `floor_page_${++pages}`;
      db.transaction(() => {
        createPage.run(state.page, at, at);
        paragraphs(blocks, "seed").forEach((b, i) => insertBlock.run(state.page, b.id, i, b.type, b.text, "{}"));
        db.prepare(`UPDATE pages SET block_count = ? WHERE id = ?`).run(blocks, state.page);
      })();
      state.revision = 1;
      state.blocks = blocks;
    },
    write: () => {
      write();
      checkpoints?.committed();
    },
    close: async () => {
      await checkpoints?.close();
      db.close();
    },
  };
}

/** Pages of a fixed, short size: a fresh page every `WRITES_PER_PAGE` appends, made before the clock starts. */
const PAGE_BLOCKS = 20;
const WRITES_PER_PAGE = 10;

export interface Sample {
  rate: number;
  cpuUs: number;
}

function cpuNow() {
  const usage = process.cpuUsage();
  return usage.user + usage.system;
}

export type Floor = Awaited<ReturnType<typeof openFloor>>;

/** `count` floor writes, a fresh short page every `WRITES_PER_PAGE` (made inside the loop, outside the timed part). */
export function timeFloorWrites(floor: Floor, count: number): Sample {
  let elapsed = 0;
  let cpu = 0;
  for (let done = 0; done < count; done += WRITES_PER_PAGE) {
    floor.newPage(PAGE_BLOCKS);
    const n = Math.min(WRITES_PER_PAGE, count - done);
    const c = cpuNow();
    const t = now();
    for (let i = 0; i < n; i++) floor.write();
    elapsed += now() - t;
    cpu += cpuNow() - c;
  }
  return { rate: count / (elapsed / 1000), cpuUs: cpu / count };
}

/** `count` one-block appends through callTool, on fresh pages of `pageBlocks` blocks (made before the clock starts). */
export async function timeRouterAppends(
  world: BenchWorld,
  count: number,
  pageBlocks = PAGE_BLOCKS,
  perPage = WRITES_PER_PAGE,
): Promise<Sample> {
  const pages: string[] = [];
  for (let done = 0; done < count; done += perPage) pages.push(await world.newPage(paragraphs(pageBlocks)));
  const c = cpuNow();
  const t = now();
  for (let i = 0; i < count; i++) {
    const page = pages[Math.floor(i / perPage)]!;
    const out = await world.call("mnote.page.save", world.envelope("mnote.page.save", page, appendArgs(i)));
    if (!out.ok) assertOk(out, "router save");
  }
  const elapsed = now() - t;
  return { rate: count / (elapsed / 1000), cpuUs: (cpuNow() - c) / count };
}

/** Section 1: the floor against `mnote.page.save` (append, one block) through callTool with a fresh key and full audit. */
export async function runFloor(options: FloorOptions) {
  const floor = await openFloor();
  const floorOwnCheckpoints = await openFloor({ sqliteCheckpoints: true });
  const world = await benchWorld("router");
  const writes = options.writesPerRound;
  const rounds: Array<{ floor: Sample; router: Sample; routerLarge: Sample; floorOwn: Sample }> = [];

  const floorRun = (count: number) => timeFloorWrites(floor, count);
  const routerRun = (count: number, pageBlocks: number, perPage: number) =>
    timeRouterAppends(world, count, pageBlocks, perPage);

  // Warm-up: JIT, statement caches, zod's first-parse compilation.
  floorRun(300);
  timeFloorWrites(floorOwnCheckpoints, 300);
  await routerRun(300, PAGE_BLOCKS, WRITES_PER_PAGE);
  await routerRun(20, 1000, 20);

  for (let round = 0; round < options.rounds; round++) {
    const result = {} as (typeof rounds)[number];
    for (const variant of roundOrder(["floor", "router", "routerLarge", "floorOwn"] as const, round)) {
      if (variant === "floor") result.floor = floorRun(writes);
      else if (variant === "floorOwn") result.floorOwn = timeFloorWrites(floorOwnCheckpoints, writes);
      else if (variant === "router") result.router = await routerRun(writes, PAGE_BLOCKS, WRITES_PER_PAGE);
      else
        result.routerLarge = await routerRun(
          Math.max(20, Math.round(writes / 4)),
          1000,
          Math.max(20, Math.round(writes / 4)),
        );
    }
    rounds.push(result);
  }
  await floor.close();
  await floorOwnCheckpoints.close();
  await world.kernel.close();

  const med = (pick: (r: (typeof rounds)[number]) => number) => median(rounds.map(pick));
  const floorRate = med((r) => r.floor.rate);
  const routerRate = med((r) => r.router.rate);
  const largeRate = med((r) => r.routerLarge.rate);
  const ratio = med((r) => r.router.rate / r.floor.rate);
  const largeRatio = med((r) => r.routerLarge.rate / r.floor.rate);
  const cpuRatio = med((r) => r.floor.cpuUs / r.router.cpuUs);
  const perRound = rounds.map((r) => r.router.rate / r.floor.rate).sort((a, b) => a - b);
  const spread = {
    min: perRound[0]!,
    p25: percentile(perRound, 25),
    p75: percentile(perRound, 75),
    max: perRound.at(-1)!,
  };
  /** Issue 37: the router keeps at least 70% of the floor's rate (it was 50% before). */
  const pass = ratio >= 0.7;
  const markdown = [
    table(
      ["path", "writes/s (median)", "wall µs/write", "CPU µs/write", "rate vs floor"],
      [
        [
          "floor: raw better-sqlite3, the 5 rows in one transaction",
          fmtRate(floorRate),
          (1e6 / floorRate).toFixed(0),
          med((r) => r.floor.cpuUs).toFixed(0),
          "100%",
        ],
        [
          `\`mnote.page.save\` append via callTool, fresh key, full audit (${PAGE_BLOCKS}–${PAGE_BLOCKS + WRITES_PER_PAGE}-block pages)`,
          fmtRate(routerRate),
          (1e6 / routerRate).toFixed(0),
          med((r) => r.router.cpuUs).toFixed(0),
          `**${fmtPct(ratio)}**`,
        ],
        [
          "same, on a 1,000-block page (for scale: an append reads no blocks, so page size should not matter)",
          fmtRate(largeRate),
          (1e6 / largeRate).toFixed(0),
          med((r) => r.routerLarge.cpuUs).toFixed(0),
          fmtPct(largeRatio),
        ],
        [
          "the floor with SQLite's own checkpoints (two fsyncs inside a commit every ~50 writes; before decision 0051)",
          fmtRate(med((r) => r.floorOwn.rate)),
          (1e6 / med((r) => r.floorOwn.rate)).toFixed(0),
          med((r) => r.floorOwn.cpuUs).toFixed(0),
          fmtPct(med((r) => r.floorOwn.rate / r.floor.rate)),
        ],
      ],
    ),
    "",
    `**Router / floor: ${fmtPct(ratio)}** of the floor's rate (median of ${rounds.length} per-round ratios; quartiles ` +
      `${fmtPct(spread.p25)}–${fmtPct(spread.p75)}, range ${fmtPct(spread.min)}–${fmtPct(spread.max)}; by CPU time ${fmtPct(cpuRatio)}). ` +
      `Goal ≥ 70%: **${pass ? "PASS" : "FAIL"}**.`,
  ].join("\n");
  return { floorRate, routerRate, largeRate, ratio, largeRatio, cpuRatio, spread, pass, rounds, markdown };
}

export function appendArgs(i: number) {
  return {
    mode: "append",
    content: [{ type: "paragraph", text: `Appended paragraph ${i}: a sentence of ordinary length.` }],
  };
}

/**
 * Where one router write's time goes: every better-sqlite3 statement timed (prototype
 * wrappers, removed afterwards), the rest of the wall time is JavaScript (checks,
 * zod, hashing, envelope). A separate pass after the measured rounds, so it cannot skew them.
 */
export async function breakdownRouterWrite(writes: number) {
  if (writes % WRITES_PER_PAGE !== 0) throw new Error(`breakdown: writes must be a multiple of ${WRITES_PER_PAGE}`);
  const stats = new Map<string, { n: number; ms: number }>();
  const floorStats = new Map<string, { n: number; ms: number }>();
  /** Where statements are counted now: the router's, the floor's, or nowhere (a page being made). */
  let counting: Map<string, { n: number; ms: number }> | null = null;
  const record = (key: string, ms: number) => {
    if (!counting) return;
    const stats = counting;
    const s = stats.get(key) ?? { n: 0, ms: 0 };
    s.n++;
    s.ms += ms;
    stats.set(key, s);
  };
  const probe = new Database(":memory:");
  const statementProto = Object.getPrototypeOf(probe.prepare("SELECT 1")) as Record<
    string,
    (...args: unknown[]) => unknown
  >;
  probe.close();
  const dbProto = Database.prototype as unknown as Record<string, (...args: unknown[]) => unknown>;
  const originals = {
    get: statementProto.get!,
    all: statementProto.all!,
    run: statementProto.run!,
    exec: dbProto.exec!,
  };
  // Memoized: the wrappers' own work counts in the wall time of both sides and in neither's SQL, so it is kept small.
  const labels = new Map<string, string>();
  const label = (sql: string) => {
    let text = labels.get(sql);
    if (text === undefined) labels.set(sql, (text = sql.replace(/\s+/g, " ").trim()));
    return text;
  };
  for (const method of ["get", "all", "run"] as const) {
    const original = originals[method];
    statementProto[method] = function (this: { source: string }, ...args: unknown[]) {
      const t = now();
      try {
        return original.apply(this, args);
      } finally {
        // Elapsed first: labelling (a regex over the SQL) must not count as SQL time.
        const elapsed = now() - t;
        record(label(this.source), elapsed);
      }
    };
  }
  dbProto.exec = function (this: unknown, sql: unknown) {
    const t = now();
    try {
      return originals.exec.call(this, sql);
    } finally {
      const elapsed = now() - t;
      record(label(String(sql)), elapsed);
    }
  };
  let wallMs = 0;
  let floorWallMs = 0;
  try {
    // The floor in the same pass, its statements timed by the same wrappers: the router's SQL is then set against
    // the floor's whole write, measured alike. The two take turns a page at a time (WRITES_PER_PAGE writes on a fresh
    // PAGE_BLOCKS-block page), so a checkpoint's stall or the machine's load falls on both; making a page counts for
    // neither.
    const floor = await openFloor();
    const world = await benchWorld("breakdown");
    const pages: string[] = [];
    for (let i = 0; i < writes / WRITES_PER_PAGE + 1; i++) pages.push(await world.newPage(paragraphs(PAGE_BLOCKS)));
    floor.newPage(PAGE_BLOCKS);
    for (let i = 0; i < 300; i++) floor.write();
    for (let i = 0; i < 100; i++)
      await world.call("mnote.page.save", world.envelope("mnote.page.save", pages.at(-1)!, appendArgs(i)));
    const floorTurn = () => {
      counting = null;
      floor.newPage(PAGE_BLOCKS);
      counting = floorStats;
      const start = now();
      for (let i = 0; i < WRITES_PER_PAGE; i++) floor.write();
      floorWallMs += now() - start;
    };
    const routerTurn = async (block: number) => {
      counting = stats;
      const start = now();
      for (let i = 0; i < WRITES_PER_PAGE; i++) {
        const out = await world.call(
          "mnote.page.save",
          world.envelope("mnote.page.save", pages[block]!, appendArgs(block * WRITES_PER_PAGE + i)),
        );
        if (!out.ok) assertOk(out, "breakdown save");
      }
      wallMs += now() - start;
    };
    for (let block = 0; block < writes / WRITES_PER_PAGE; block++) {
      // Which side goes first alternates: the side that just wrote leaves its checkpoint worker copying its WAL.
      for (const side of roundOrder(["floor", "router"] as const, block)) {
        if (side === "floor") floorTurn();
        else await routerTurn(block);
      }
    }
    counting = null;
    await floor.close();
    await world.kernel.close();
  } finally {
    Object.assign(statementProto, { get: originals.get, all: originals.all, run: originals.run });
    dbProto.exec = originals.exec;
  }
  const perWrite = (ms: number) => (ms * 1000) / writes;
  const rows = [...stats].sort((a, b) => b[1].ms - a[1].ms);
  const sqlUs = perWrite(rows.reduce((sum, [, s]) => sum + s.ms, 0));
  const wallUs = perWrite(wallMs);
  const short = (sql: string) => (sql.length > 90 ? `${sql.slice(0, 87)}…` : sql);
  const markdown = table(
    ["where", "µs per write", "share"],
    [
      ...rows.map(([sql, s]) => [
        `\`${short(sql)}\`${s.n / writes !== 1 ? ` (×${(s.n / writes).toFixed(1)})` : ""}`,
        perWrite(s.ms).toFixed(0),
        fmtPct(perWrite(s.ms) / wallUs),
      ]),
      ["**all SQL**", `**${sqlUs.toFixed(0)}**`, fmtPct(sqlUs / wallUs)],
      [
        "**JavaScript: checks, zod, hashing, planning, the kernel's statements, envelopes**",
        `**${(wallUs - sqlUs).toFixed(0)}**`,
        fmtPct((wallUs - sqlUs) / wallUs),
      ],
      ["**wall time of one write**", `**${wallUs.toFixed(0)}**`, "100%"],
    ],
  );
  // What the floor goal asks of the router, from this pass alone (issue 37: ≥ 70% of the floor's rate "with the
  // JavaScript share halved"): the router's statements cost what they cost whatever its JavaScript does.
  const floorUs = perWrite(floorWallMs);
  const floorSqlUs = perWrite([...floorStats.values()].reduce((sum, s) => sum + s.ms, 0));
  const jsUs = wallUs - sqlUs;
  const ceilings = {
    floorUs,
    floorSqlUs,
    /** The router's rate against the floor's were its JavaScript to take no time at all. */
    noJavaScript: floorUs / sqlUs,
    /** The same with its JavaScript halved, the goal's own means. */
    halfJavaScript: floorUs / (sqlUs + jsUs / 2),
    /** The JavaScript a router write could spend and still keep 70% of the floor's rate (negative: none). */
    jsBudgetAt70: floorUs / 0.7 - sqlUs,
    /** This pass's own router ÷ floor rate (its statements timed, so below section 1's untimed ratio). */
    pass: floorUs / wallUs,
  };
  return { markdown, sqlUs, wallUs, jsUs, ceilings };
}
