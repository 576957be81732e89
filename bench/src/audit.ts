/**
 * The audit trail (issue 39, decision 0035): bytes per audited read and write before and after version 12 (the month
 * column, PostgreSQL's partitions, the command index without reads), a write's time before and after, and a
 * retention sweep of 1,000,000 expired records with the p99 of concurrent tool calls during it against without it.
 *
 * "Before" is a database migrated to version 10 (the release before) whose audit_log only gained the nullable
 * `month` column the kernel now writes: the old table, the old indexes, no partitions. "After" is version 12.
 */
import { existsSync, readFileSync, realpathSync } from "node:fs";
import { join } from "node:path";
import type { ToolName } from "@mnote/contract";
import {
  ManualClock,
  migrate,
  openPostgresDriver,
  openSqliteDriver,
  type SqlDriver,
  type SqlExecutor,
  SqlKernel,
} from "@mnote/kernel";
import { callTool, createToolsContext } from "@mnote/tools";
import { fmtBytes, fmtMs, fmtRatio, median, now, percentile, roundOrder, table, takeTurns } from "./stats";
import { ALL_SCOPES, driverOf, paragraphs, tempDir } from "./world";

export interface AuditBenchSettings {
  /** Records per kind for the bytes. */
  records: number;
  /** Write timing: pairs of fresh databases (before, after), rounds on each pair, writes per round per variant. */
  writePairs: number;
  rounds: number;
  writesPerRound: number;
  /** Expired records the sweep removes. */
  sweepRows: number;
  /** Concurrent page.get callers during the sweep. */
  callers: number;
  /** Row sweeps: rounds of (no sweep, this code's sweep, the sweep as before), each sweeping a share of the rows. */
  sweepRounds: number;
  /** Month drops: rounds of (this code's drop, decision 0035's drop), each of a freshly loaded month. */
  monthRounds: number;
  postgresUrl: string;
}

type Kind = "sqlite" | "postgres";
type Variant = "before" | "after";

let schemas = 0;
async function openDriver(kind: Kind, url: string): Promise<SqlDriver> {
  if (kind === "sqlite") return openSqliteDriver(join(tempDir("audit"), "mnote.db"));
  return openPostgresDriver(url, {
    schema: `mnote_bench_audit_${process.pid}_${++schemas}`,
    dropSchemaOnClose: true,
    poolMax: 8,
    statementTimeoutMs: 0,
  });
}

/** A kernel on a fresh database in the variant's schema. */
async function openVariant(kind: Kind, variant: Variant, url: string, clock: ManualClock): Promise<SqlKernel> {
  const driver = await openDriver(kind, url);
  if (variant === "before") {
    await migrate(driver, clock, 10);
    await driver.exec(
      `ALTER TABLE audit_log ADD COLUMN month INTEGER;
       CREATE TABLE audit_streams (target TEXT PRIMARY KEY, after_id BIGINT NOT NULL, updated_at TEXT NOT NULL);
       INSERT INTO schema_migrations (version, name, applied_at) VALUES (12, 'bench: the table before version 12', '${clock.now().toISOString()}')`,
    );
  }
  return SqlKernel.open(driver, { clock });
}

/** An owner, a workspace that holds nothing for approval, a page and an agent token; calls through the router. */
async function world(kernel: SqlKernel) {
  const owner = (await kernel.admin.createUser({ id: "bench_owner", name: "Owner" })).id;
  const ws = (
    await kernel.admin.createWorkspace({ id: "bench_ws", name: "Bench", ownerId: owner, approvalRequired: false })
  ).id;
  const page = (
    await kernel.admin.createPage({
      id: "bench_page",
      workspaceId: ws,
      title: "Bench",
      blocks: paragraphs(20),
      createdBy: owner,
    })
  ).id;
  const { token } = await kernel.admin.createToken({ userId: owner, holder: "agent", scopes: ALL_SCOPES });
  const context = createToolsContext({ kernel, authorization: token, settings: { readCacheBytes: 0 } });
  let n = 0;
  const call = async (tool: ToolName, args: Record<string, unknown>) => {
    n++;
    const out = await callTool(context, tool, {
      toolName: tool,
      workspaceId: ws,
      documentId: page,
      actorId: owner,
      // Hermes-like ids, as long as real ones.
      sessionId: `mnote_${page}_0b6a4c1e-5f0d-4d8e-9f65-3a2b1c0d${String(n % 10_000).padStart(4, "0")}`,
      runId: `run_${(n % 97).toString(36)}_5f0d4d8e9f653a2b`,
      toolCallId: `call_${n}_9f653a2b1c0d4d8e`,
      traceId: `trace_${n}_0b6a4c1e5f0d4d8e`,
      capabilityScope: ALL_SCOPES,
      ...(tool === "mnote.page.get" ? {} : { idempotencyKey: `key_${n}`, dryRun: false }),
      args,
    });
    if (!out.ok) throw new Error(`${tool}: ${out.error?.code}`);
  };
  const read = () => call("mnote.page.get", { limit: 5 });
  const write = () => call("mnote.page.update_title", { title: `Title ${n}` });
  return { owner, ws, page, read, write };
}

/** Bytes of the audit records and their indexes (every partition on PostgreSQL; dbstat pages on SQLite). */
async function auditBytes(kernel: SqlKernel, driver: SqlDriver): Promise<number> {
  if (kernel.dialect === "sqlite") {
    const row = await driver.get<{ bytes: number }>(
      `SELECT SUM(pgsize) AS bytes FROM dbstat WHERE name = 'audit_log' OR name LIKE 'audit_by_%'`,
    );
    return Number(row?.bytes ?? 0);
  }
  const row = await driver.get<{ bytes: number | string }>(
    `SELECT SUM(pg_total_relation_size(c.oid)) AS bytes FROM pg_class c
     WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind = 'r' AND c.relname LIKE 'audit_log%'`,
  );
  return Number(row?.bytes ?? 0);
}

/** The driver under a kernel (the bench reads sizes and loads rows with SQL of its own). */
async function bytesPerRecord(kind: Kind, variant: Variant, settings: AuditBenchSettings) {
  const result: Record<"read" | "write", number> = { read: 0, write: 0 };
  for (const what of ["read", "write"] as const) {
    const clock = new ManualClock("2026-06-15T12:00:00.000Z");
    const kernel = await openVariant(kind, variant, settings.postgresUrl, clock);
    try {
      const w = await world(kernel);
      const driver = driverOf(kernel);
      if (kind === "postgres") await driver.run(`VACUUM ANALYZE audit_log`);
      const before = await auditBytes(kernel, driver);
      for (let i = 0; i < settings.records; i++) await (what === "read" ? w.read() : w.write());
      const after = await auditBytes(kernel, driver);
      result[what] = Math.round((after - before) / settings.records);
    } finally {
      await kernel.close();
    }
  }
  return result;
}

/**
 * Median time of a write (`page.update_title` through the router) before and after, rounds interleaved, on
 * `writePairs` pairs of fresh databases. On PostgreSQL one pair's ratio sat within a few points round after round, but
 * moved from pair to pair: 0.94×–1.03× over six fresh pairs of the same code, in one process, 15 rounds each, with
 * neither side systematically ahead and the order the two were opened in making no difference (2026-12-06). So one
 * pair per run made the median of a whole run move 0.96×–1.09× from run to run; several pairs average that out.
 */
async function writeTimes(kind: Kind, settings: AuditBenchSettings) {
  const perRound: Record<Variant, number[]> = { before: [], after: [] };
  const ratios: number[] = [];
  for (let pair = 0; pair < settings.writePairs; pair++) {
    const clock = new ManualClock("2026-06-15T12:00:00.000Z");
    const kernels = {
      before: await openVariant(kind, "before", settings.postgresUrl, clock),
      after: await openVariant(kind, "after", settings.postgresUrl, clock),
    };
    try {
      const worlds = { before: await world(kernels.before), after: await world(kernels.after) };
      for (const variant of ["before", "after"] as const) for (let i = 0; i < 50; i++) await worlds[variant].write();
      for (let round = 0; round < settings.rounds; round++) {
        // The two take turns write by write (the order swapping each step), so a stall of the database (a checkpoint,
        // the shared machine) falls on either alike; in blocks of writes it fell on one side's block (PostgreSQL 1.08×
        // and 0.95× in two runs of the same code, 2026-12-06).
        const { ms: spent } = await takeTurns(["before", "after"] as const, settings.writesPerRound, round, (variant) =>
          worlds[variant].write(),
        );
        for (const variant of ["before", "after"] as const)
          perRound[variant].push(spent[variant] / settings.writesPerRound);
        ratios.push(spent.after / spent.before);
      }
    } finally {
      await kernels.before.close();
      await kernels.after.close();
    }
  }
  ratios.sort((x, y) => x - y);
  return {
    before: median(perRound.before),
    after: median(perRound.after),
    ratio: median(ratios),
    p25: percentile(ratios, 25),
    p75: percentile(ratios, 75),
    min: ratios[0]!,
    max: ratios.at(-1)!,
  };
}

/** `count` records two years old (past any retention), written with SQL in bulk as a busy past would have. */
async function loadExpired(kernel: SqlKernel, count: number, at: Date, month: number | null) {
  const driver = driverOf(kernel);
  const chunk = 100_000;
  for (let done = 0; done < count; done += chunk) {
    const n = Math.min(chunk, count - done);
    // One month of records, a record a few seconds apart; the month column as the kernel writes it.
    const series =
      kernel.dialect === "sqlite"
        ? `WITH RECURSIVE g(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM g WHERE i < ${n}) SELECT i FROM g`
        : `SELECT generate_series(1, ${n}) AS i`;
    await driver.run(
      `INSERT INTO audit_log (at, tool_name, effect, outcome, workspace_id, document_id, actor_id, token_id, holder,
         session_id, run_id, tool_call_id, trace_id, duration_ms, month)
       SELECT ?, 'mnote.page.get', 'read', 'ok', 'bench_ws', 'bench_page', 'bench_owner', 'tok_0123456789', 'agent',
         'mnote_bench_page_0b6a4c1e-5f0d-4d8e-9f65-3a2b1c0d0000', 'run_x_5f0d4d8e9f653a2b',
         'call_' || (i + ${done}), 'trace_' || (i + ${done}), 3, ?
       FROM (${series}) s`,
      [at.toISOString(), month],
    );
  }
}

/** Decision 0035's rule of what retention keeps, as its drop and the row sweep before issue 39's last round ran it (one OR). */
const NEEDED_AS_OR = `(a.id IN (SELECT p.audit_id FROM proposals p WHERE p.status = 'pending')
  OR (a.effect = 'write' AND a.outcome = 'ok' AND a.command_id IS NOT NULL)
  OR a.run_id IN (SELECT r.run_id FROM ask_runs r WHERE r.status = 'running'))`;

/**
 * For comparison, the drop decision 0041 replaced, statement for statement as it ran on the sweep's own session:
 * the needed records moved (a batch), then in one transaction the move again, the decided proposals' index rows,
 * the count, DETACH (ACCESS EXCLUSIVE on audit_log) and DROP, committed.
 */
async function dropAsIn0035(driver: SqlDriver): Promise<number> {
  const needed = `SELECT a.id FROM audit_log a WHERE a.month = 202603 AND ${NEEDED_AS_OR}`;
  return driver.session!(async (session) => {
    await session.run(`UPDATE audit_log SET month = 0 WHERE month = 202603 AND id IN (${needed} LIMIT 1000)`);
    await session.run("BEGIN");
    await session.run(`UPDATE audit_log SET month = 0 WHERE month = 202603 AND id IN (${needed})`);
    await session.run(
      `DELETE FROM proposals WHERE status <> 'pending' AND audit_id IN (SELECT id FROM audit_log_m202603)`,
    );
    const count = await session.get<{ n: number | string }>(`SELECT COUNT(*) AS n FROM audit_log_m202603`);
    await session.run(`ALTER TABLE audit_log DETACH PARTITION audit_log_m202603`);
    await session.run(`DROP TABLE audit_log_m202603`);
    await session.run("COMMIT");
    return Number(count?.n ?? 0);
  });
}

/**
 * For comparison, the row sweep as it ran before the keep-rule became one (retention.ts before this change), for
 * `batches` batches: the same walk by id, and per batch BEGIN, the decided proposals' rows and the records deleted
 * with the rule as one OR through `id IN (SELECT …)`, COMMIT — on PostgreSQL on a session of its own with
 * synchronous commits (SQLite: the driver's transaction, as then).
 */
async function rowSweepAsBefore(driver: SqlDriver, cutoff: string, batchSize: number, batches: number) {
  const removable = `a.id > ? AND a.id <= ? AND (a.at < ? OR (a.effect = 'read' AND a.at < ?)) AND NOT ${NEEDED_AS_OR}`;
  const walk = async (session: SqlExecutor, inTransaction: <T>(fn: (tx: SqlExecutor) => Promise<T>) => Promise<T>) => {
    let removed = 0;
    let after = 0;
    for (let batch = 0; batch < batches; batch++) {
      const page = await session.all<{ id: number; at: string }>(
        `SELECT id, at FROM audit_log WHERE id > ? ORDER BY id LIMIT ${batchSize}`,
        [after],
      );
      const past = page.filter((row) => row.at < cutoff);
      if (past.length === 0) break;
      const last = Number(past.at(-1)!.id);
      const params = [after, last, cutoff, cutoff];
      removed += await inTransaction(async (tx) => {
        await tx.run(
          `DELETE FROM proposals WHERE status <> 'pending' AND audit_id IN (SELECT a.id FROM audit_log a WHERE ${removable})`,
          params,
        );
        return (
          await tx.run(`DELETE FROM audit_log WHERE id IN (SELECT a.id FROM audit_log a WHERE ${removable})`, params)
        ).changes;
      });
      after = last;
      await new Promise((resolve) => setImmediate(resolve));
      if (past.length < page.length || page.length < batchSize) break;
    }
    return removed;
  };
  if (!driver.session) return walk(driver, (fn) => driver.transaction(fn));
  return driver.session(async (session) => {
    await session.run(`SET lock_timeout = '2s'`);
    return walk(session, async (fn) => {
      await session.run("BEGIN");
      try {
        const result = await fn(session);
        await session.run("COMMIT");
        return result;
      } catch (error) {
        await session.run("ROLLBACK").catch(() => undefined);
        throw error;
      }
    });
  });
}

type Layout = "rows" | "rows-before" | "months" | "months-0035";

const LAYOUT_LABELS: Record<Layout | "table" | "table-before", string> = {
  table: "one table",
  "table-before": "one table, swept as before this change (the rule as one OR, two DELETEs a batch)",
  rows: "the table from before version 12 (rows)",
  "rows-before": "the table from before version 12, swept as before this change (BEGIN, two DELETEs, COMMIT a batch)",
  months: "a month's partition (decision 0041: detached concurrently, then dropped)",
  "months-0035": "a month's partition as decision 0035 dropped it (DETACH and DROP in one transaction)",
};

/** One measured round: the callers' latencies without a sweep and during one, side by side in the same minutes. */
interface SweepRound {
  without: number[];
  during: number[];
}

interface SweepResult {
  label: string;
  /** A way this code replaced, measured beside it: not held to the goal. */
  comparison: boolean;
  removed: number;
  /** Seconds spent sweeping (all rounds). */
  seconds: number;
  rounds: SweepRound[];
  /** Every expired record of the experiment was removed in the end. */
  complete: boolean;
}

/** `callers` page.get callers in a loop; `take` answers the latencies since the last take. */
function callersOf(read: () => Promise<void>, callers: number) {
  let latencies: number[] = [];
  let running = true;
  const loops = Array.from({ length: callers }, async () => {
    while (running) {
      const t = now();
      await read();
      latencies.push(now() - t);
      // SQLite answers in microtasks only: without a turn of the event loop the timers (and the sweep) never run.
      await new Promise((resolve) => setImmediate(resolve));
    }
  });
  return {
    take() {
      const taken = latencies;
      latencies = [];
      return taken;
    },
    async stop() {
      running = false;
      await Promise.all(loops);
    },
  };
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A kernel whose audit_log holds `settings.sweepRows` records two years old, a world and warmed callers. */
async function expiredWorld(kind: Kind, settings: AuditBenchSettings) {
  const clock = new ManualClock("2028-06-15T12:00:00.000Z");
  const kernel = await openVariant(kind, "after", settings.postgresUrl, clock);
  const w = await world(kernel);
  const driver = driverOf(kernel);
  return { clock, kernel, w, driver };
}

const OLD = new Date("2026-03-10T00:00:00.000Z");
const DAYS = 365;

/**
 * The row sweep (SQLite's table; on PostgreSQL the records an upgraded database carries from before version 12, in
 * the old table's partition, month NULL): 1,000,000 expired records, then `callers` page.get callers in a loop while
 * rounds alternate, in rotating order, between no sweep, this code's sweep (runs of `sweepAudit` with a process's
 * defaults but a bounded number of batches) and the sweep as before this change — each sweeping its share of the
 * same records. Each round gives a ratio of p99s against the no-sweep phase of the same round.
 */
async function rowSweepRounds(kind: Kind, settings: AuditBenchSettings): Promise<SweepResult[]> {
  const { clock, kernel, w, driver } = await expiredWorld(kind, settings);
  try {
    await loadExpired(kernel, settings.sweepRows, OLD, null);
    if (kind === "postgres") await driver.run(`VACUUM ANALYZE audit_log`);
    for (let i = 0; i < 200; i++) await w.read();
    const batchSize = kind === "sqlite" ? 250 : 1000;
    const batches = Math.ceil(settings.sweepRows / batchSize / (2 * settings.sweepRounds));
    const cutoff = new Date(clock.now().getTime() - DAYS * 86_400_000).toISOString();
    const results = {
      now: { removed: 0, seconds: 0, rounds: [] as SweepRound[] },
      before: { removed: 0, seconds: 0, rounds: [] as SweepRound[] },
    };
    const callers = callersOf(w.read, settings.callers);
    let lastSweepMs = 2000;
    for (let round = 0; round < settings.sweepRounds; round++) {
      const phases: Partial<Record<"without" | "now" | "before", number[]>> = {};
      for (const phase of roundOrder(["without", "now", "before"] as const, round)) {
        callers.take();
        const t = now();
        if (phase === "without") await pause(Math.min(5000, Math.max(500, lastSweepMs)));
        else if (phase === "now")
          results.now.removed += (
            await kernel.housekeeping.sweepAudit(clock.now(), { days: DAYS, maxBatches: batches })
          ).removed;
        else results.before.removed += await rowSweepAsBefore(driver, cutoff, batchSize, batches);
        const ms = now() - t;
        phases[phase] = callers.take();
        if (phase !== "without") {
          results[phase].seconds += ms / 1000;
          lastSweepMs = ms;
        }
      }
      for (const variant of ["now", "before"] as const)
        results[variant].rounds.push({ without: phases.without!, during: phases[variant]! });
    }
    await callers.stop();
    // What the rounds left (a share that did not divide evenly) goes unmeasured, so that every record is removed.
    let rest = 0;
    for (;;) {
      const sweep = await kernel.housekeeping.sweepAudit(clock.now(), { days: DAYS });
      rest += sweep.removed;
      if (!sweep.more) break;
    }
    const complete = results.now.removed + results.before.removed + rest >= settings.sweepRows;
    const names = kind === "sqlite" ? (["table", "table-before"] as const) : (["rows", "rows-before"] as const);
    const label = (layout: (typeof names)[number]) =>
      `${kind === "sqlite" ? "SQLite" : "PostgreSQL"}, ${LAYOUT_LABELS[layout]}`;
    return [
      { label: label(names[0]), comparison: false, ...results.now, removed: results.now.removed + rest, complete },
      { label: label(names[1]), comparison: true, ...results.before, complete },
    ];
  } finally {
    await kernel.close();
  }
}

/**
 * Where the PostgreSQL server keeps its files, when it runs on this machine: the file system and its mount options.
 * A month's drop frees its files at commit, and with online `discard` the device is told of every freed block inside
 * the journal commit every WAL fsync waits for (decision 0041, amendment of 2026-12-04 night): the same drop's p99 is
 * then the device's, so the report names it beside the figures.
 */
async function postgresStorage(url: string): Promise<string> {
  // Only a server on this machine has its data directory here (a remote or containerized one's path may exist here
  // too, naming something else).
  const host = new URL(url).hostname;
  if (!["127.0.0.1", "localhost", "[::1]", ""].includes(host))
    return `*PostgreSQL's storage*: the server (${host}) is not this machine's; its mount is not read.`;
  const driver = await openPostgresDriver(url, { poolMax: 1 });
  try {
    // Readable by a superuser or a member of pg_read_all_settings.
    const row = await driver.get<{ dir: string }>(`SELECT current_setting('data_directory') AS dir`).catch(() => null);
    if (!row?.dir || !existsSync(row.dir))
      return "*PostgreSQL's storage*: its data directory is not readable with this role (`pg_read_all_settings`) or not here.";
    const dir = realpathSync(row.dir);
    const mount = mountOf(dir);
    if (!mount) return `*PostgreSQL's storage*: \`${dir}\`, on no mount /proc/mounts lists.`;
    // `discard` on ext4 and XFS, `discard=async` or `discard=sync` on btrfs: each trims as blocks are freed.
    const discard = mount.options.some((option) => option === "discard" || option.startsWith("discard="));
    return (
      `*PostgreSQL's storage*: \`${dir}\` on ${mount.type} (${mount.device}), mounted \`${mount.options.join(",")}\`. ` +
      (discard
        ? "Online discard is on: the blocks a month's drop frees are trimmed as they are freed, and on this machine's " +
          "disk every WAL fsync waited for that (decision 0041, last amendment), so the month row measures the " +
          "device's discard as much as the drop; `docs/operations.md` asks for a mount without it."
        : "Online discard is off (blocks are trimmed later, by `fstrim`), as `docs/operations.md` asks for.")
    );
  } finally {
    await driver.close();
  }
}

/** The mount holding `path` (the longest mount point it is under), from /proc/mounts; null where there is none. */
function mountOf(path: string) {
  let lines: string[];
  try {
    lines = readFileSync("/proc/mounts", "utf8").split("\n");
  } catch {
    return null;
  }
  // /proc/mounts writes a space, tab, newline or backslash in a field as an octal escape (\040 for a space).
  const field = (text: string) =>
    text.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(parseInt(octal, 8)));
  const under = (point: string) => path === point || path.startsWith(point.endsWith("/") ? point : `${point}/`);
  return (
    lines
      .map((line) => line.split(" "))
      .filter((fields) => fields.length >= 4)
      .map(([device, point, type, options]) => ({
        device: field(device!),
        point: field(point!),
        type: type!,
        options: options!.split(","),
      }))
      .filter((mount) => under(mount.point))
      .sort((a, b) => b.point.length - a.point.length)[0] ?? null
  );
}

/**
 * A month's partition of 1,000,000 expired records dropped (PostgreSQL), against the same month dropped as decision
 * 0035 did: rounds alternate the two in rotating order, each round loading a fresh month, measuring the callers for
 * 3 s without a sweep and then during the drop.
 */
async function monthDropRounds(settings: AuditBenchSettings): Promise<SweepResult[]> {
  const { clock, kernel, w, driver } = await expiredWorld("postgres", settings);
  try {
    for (let i = 0; i < 200; i++) await w.read();
    const results = {
      months: { removed: 0, seconds: 0, rounds: [] as SweepRound[] },
      "months-0035": { removed: 0, seconds: 0, rounds: [] as SweepRound[] },
    };
    for (let round = 0; round < settings.monthRounds; round++) {
      for (const layout of roundOrder(["months", "months-0035"] as const, round)) {
        await driver.run(`CREATE TABLE audit_log_m202603 PARTITION OF audit_log FOR VALUES IN (202603)`);
        await loadExpired(kernel, settings.sweepRows, OLD, 202603);
        await driver.run(`VACUUM ANALYZE audit_log`);
        // The load leaves its pages dirty in shared buffers, and the checkpointer writes them out some time later:
        // during one layout's drop or the other's, or during a "without" phase. Written out here, every phase starts
        // alike. (With the layouts always in one order, the load before the first layout's drop had the longest to
        // settle; alternating them moved this row from 1.46–1.79× to 2.15×, 2026-12-06.)
        await driver.run(`CHECKPOINT`);
        const callers = callersOf(w.read, settings.callers);
        await pause(3000);
        const without = callers.take();
        const t = now();
        if (layout === "months-0035") results[layout].removed += await dropAsIn0035(driver);
        else
          for (;;) {
            const sweep = await kernel.housekeeping.sweepAudit(clock.now(), { days: DAYS });
            results[layout].removed += sweep.removed + sweep.droppedRecords;
            if (!sweep.more) break;
          }
        results[layout].seconds += (now() - t) / 1000;
        results[layout].rounds.push({ without, during: callers.take() });
        await callers.stop();
      }
    }
    return (["months", "months-0035"] as const).map((layout) => ({
      label: `PostgreSQL, ${LAYOUT_LABELS[layout]}`,
      comparison: layout === "months-0035",
      ...results[layout],
      complete: results[layout].removed >= settings.sweepRows * settings.monthRounds,
    }));
  } finally {
    await kernel.close();
  }
}

/** Per-round ratios of p99 during / without, their median and range; the p50s and p99s over all rounds. */
function sweepFigures(s: SweepResult) {
  const ratios = s.rounds.map((r) => percentile(r.during, 99) / percentile(r.without, 99)).sort((a, b) => a - b);
  const all = (pick: (r: SweepRound) => number[]) => s.rounds.flatMap(pick);
  return {
    ratio: median(ratios),
    min: ratios[0]!,
    max: ratios.at(-1)!,
    ratios,
    without: {
      p50: percentile(
        all((r) => r.without),
        50,
      ),
      p99: percentile(
        all((r) => r.without),
        99,
      ),
    },
    during: {
      p50: percentile(
        all((r) => r.during),
        50,
      ),
      p99: percentile(
        all((r) => r.during),
        99,
      ),
    },
  };
}

export async function runAudit(settings: AuditBenchSettings) {
  const kinds: Kind[] = ["sqlite", "postgres"];
  const bytes: string[][] = [];
  const bytesData: Record<string, { before: { read: number; write: number }; after: { read: number; write: number } }> =
    {};
  const log = (message: string) => process.stderr.write(`[bench audit] ${message}\n`);
  for (const kind of kinds) {
    log(`bytes ${kind}`);
    const before = await bytesPerRecord(kind, "before", settings);
    const after = await bytesPerRecord(kind, "after", settings);
    bytesData[kind] = { before, after };
    for (const what of ["read", "write"] as const)
      bytes.push([
        `${kind === "sqlite" ? "SQLite" : "PostgreSQL"}, per ${what}`,
        fmtBytes(before[what]),
        fmtBytes(after[what]),
        fmtRatio(after[what] / before[what]),
      ]);
  }
  const writes: string[][] = [];
  const writeData: Record<string, number> = {};
  for (const kind of kinds) {
    log(`writes ${kind}`);
    const time = await writeTimes(kind, settings);
    writeData[kind] = time.ratio;
    writes.push([
      kind === "sqlite" ? "SQLite" : "PostgreSQL",
      fmtMs(time.before),
      fmtMs(time.after),
      `**${fmtRatio(time.ratio)}** (quartiles ${fmtRatio(time.p25)}–${fmtRatio(time.p75)}, range ${fmtRatio(time.min)}–${fmtRatio(time.max)})`,
    ]);
  }
  const sweeps: SweepResult[] = [];
  log("sweep sqlite rows");
  sweeps.push(...(await rowSweepRounds("sqlite", settings)));
  log("sweep postgres months");
  sweeps.push(...(await monthDropRounds(settings)));
  log("sweep postgres rows");
  sweeps.push(...(await rowSweepRounds("postgres", settings)));
  const storage = await postgresStorage(settings.postgresUrl);
  const sweepRows = sweeps.map((s) => {
    const f = sweepFigures(s);
    const ratio = `${fmtRatio(f.ratio)} (${fmtRatio(f.min)}–${fmtRatio(f.max)}, ${s.rounds.length} rounds)`;
    return {
      s,
      f,
      row: [
        s.label,
        s.removed.toLocaleString("en-US"),
        `${s.seconds.toFixed(1)} s`,
        `${fmtMs(f.without.p50)} / ${fmtMs(f.without.p99)}`,
        `${fmtMs(f.during.p50)} / ${fmtMs(f.during.p99)}`,
        s.comparison ? ratio : `**${ratio}**`,
      ],
    };
  });
  const writePass = Object.values(writeData).every((ratio) => ratio <= 1.05);
  const sweepPass = sweepRows.every((r) => r.s.comparison || (r.f.ratio <= 2 && r.s.complete));
  const markdown = [
    table(["audit record", "before (v10)", "after (v12)", "after / before"], bytes),
    "",
    table(
      [
        "write (`page.update_title` via the router)",
        "before",
        "after",
        `after / before: median of ${settings.writePairs * settings.rounds} rounds, ${settings.writePairs} pairs (goal ≤ 1.05×)`,
      ],
      writes,
    ),
    "",
    table(
      [
        "sweep of expired records",
        "removed",
        "took",
        "page.get p50 / p99 without",
        "p50 / p99 during",
        "p99 during / without: median of rounds (range; goal ≤ 2×)",
      ],
      sweepRows.map((r) => r.row),
    ),
    "",
    storage,
  ].join("\n");
  return {
    markdown,
    bytes: bytesData,
    writes: writeData,
    sweeps: sweepRows,
    pass: writePass && sweepPass,
    writePass,
    sweepPass,
  };
}
