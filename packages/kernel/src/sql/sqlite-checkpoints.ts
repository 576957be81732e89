import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";

/**
 * SQLite's WAL checkpoints, run on a worker thread instead of inside a commit on the event loop (decision 0051).
 *
 * In WAL mode a commit only appends pages to the `-wal` file; a checkpoint copies them back into the database file
 * and, with `synchronous = NORMAL`, syncs both files. By default the connection whose commit takes the WAL past 1,000
 * pages runs it inside that commit. better-sqlite3 is synchronous, so that one call held the event loop for the two
 * fsyncs: 3.2–4.6 ms on this project's machines against 0.1–0.2 ms for the same checkpoint without them, about every
 * 80 router writes (docs/benchmarks.md, section 1).
 *
 * A worker with its own connection runs a PASSIVE checkpoint whenever `CHECKPOINT_EVERY` more commits have been made:
 * PASSIVE takes no lock a writer waits for, and its copying and fsyncs wait on that thread. The writer still
 * checkpoints itself, at `WRITER_WAL_PAGES`: SQLite starts the WAL over only after a checkpoint that found no frame
 * left to copy, which under steady writes only the writer's own can be; by then the worker has copied nearly every
 * frame, and the writer's checkpoint is the last few frames and the syncs, a tenth as often. If the worker cannot
 * start or fails, the writer goes back to SQLite's 1,000 pages: durability and the WAL's bounds are SQLite's either
 * way, only the thread that waits for the disk changes.
 *
 * The commit count is shared memory (`Atomics`), not messages: a worker message is delivered only when the event
 * loop turns, and a burst of writes in one task (a migration, an import, a benchmark's loop) never lets it.
 */
export const CHECKPOINT_EVERY = 64;
/** The writer's own automatic checkpoint while the worker runs (pages); SQLite's default is 1,000. */
export const WRITER_WAL_PAGES = 10_000;
const SQLITE_DEFAULT_WAL_PAGES = 1_000;
/** How long the worker sleeps between looks at the count when no commit wakes it (ms). */
const IDLE_LOOK_MS = 1_000;

/** Slots of the shared Int32Array, on both threads (the worker gets them in its `workerData`). */
const SLOT = { COMMITS: 0, STOP: 1, COMPLETED: 2, FAILED: 3, LAST_LOG: 4, LAST_CHECKPOINTED: 5 } as const;
const { COMMITS, STOP, COMPLETED, FAILED, LAST_LOG, LAST_CHECKPOINTED } = SLOT;
const SLOTS = Object.keys(SLOT).length;

/** The worker's code, run as a script: no file for a bundler to move (the bridge, the CLI and Next.js bundle this). */
const WORKER_SOURCE = `
const { workerData } = require("node:worker_threads");
const shared = new Int32Array(workerData.shared);
const { COMMITS, STOP, COMPLETED, FAILED, LAST_LOG, LAST_CHECKPOINTED } = workerData.slot;
let db;
try {
  const Database = require(workerData.driverPath);
  db = new Database(workerData.path);
  db.pragma("busy_timeout = " + workerData.busyTimeoutMs);
  db.pragma("synchronous = NORMAL");
  // Started because a checkpoint is due: the first look makes one.
  let seen = (Atomics.load(shared, COMMITS) - workerData.every) | 0;
  while (Atomics.load(shared, STOP) === 0) {
    const commits = Atomics.load(shared, COMMITS);
    // The count is an Int32 that wraps after 2^31 commits (25 days at 1,000 a second): the distance is taken the same way.
    if (((commits - seen) | 0) >= workerData.every) {
      seen = commits;
      const row = db.pragma("wal_checkpoint(PASSIVE)", { simple: false })[0];
      Atomics.store(shared, LAST_LOG, row.log);
      Atomics.store(shared, LAST_CHECKPOINTED, row.checkpointed);
      Atomics.add(shared, COMPLETED, 1);
      Atomics.notify(shared, COMPLETED);
    } else {
      Atomics.wait(shared, COMMITS, commits, workerData.idleLookMs);
    }
  }
} catch (error) {
  Atomics.store(shared, FAILED, 1);
  Atomics.notify(shared, COMPLETED);
} finally {
  if (db) db.close();
}
`;

/** `Atomics.waitAsync` (Node 16 and later; its types are in a newer `lib` than this project's). */
const waitAsync = (array: Int32Array, index: number, value: number, timeoutMs: number) =>
  (
    Atomics as unknown as {
      waitAsync(
        array: Int32Array,
        index: number,
        value: number,
        timeoutMs: number,
      ): { value: Promise<string> | string };
    }
  ).waitAsync(array, index, value, timeoutMs);

/**
 * Where better-sqlite3 is installed, as this module resolves it; null where it cannot be found by path. The bridge's
 * and the CLI's bundles keep this module's own `import.meta.url` (`mnote-compile`), so they find it. The panel's
 * Next.js build turns the resolution into a bundler module id (a number): no path a worker could load, so the panel's
 * process checkpoints as SQLite does by default.
 */
export function driverPath(): string | null {
  try {
    const path: unknown = createRequire(import.meta.url).resolve("better-sqlite3");
    return typeof path === "string" ? path : null;
  } catch {
    return null;
  }
}

/** What the worker's latest checkpoint did: SQLite's WAL frames, and how many of them are in the database file. */
export interface CheckpointCounts {
  completed: number;
  log: number;
  checkpointed: number;
}

export class WalCheckpoints {
  private worker: Worker | null = null;
  /** Where the worker loads better-sqlite3 from, found once (none: SQLite's own checkpoints from the start). */
  private readonly driverPath = driverPath();
  private readonly shared = new Int32Array(new SharedArrayBuffer(SLOTS * Int32Array.BYTES_PER_ELEMENT));
  private commits = 0;
  /** The worker failed or could not start: the writer checkpoints itself again, as SQLite does by default. */
  private fallenBack = false;
  private closed = false;

  constructor(
    private readonly path: string,
    private readonly setWriterAutoCheckpoint: (pages: number) => void,
    private readonly busyTimeoutMs: number,
  ) {
    if (this.driverPath) this.setWriterAutoCheckpoint(WRITER_WAL_PAGES);
    else this.fallenBack = true;
  }

  /** Called after every commit on the writer. The worker starts with the first checkpoint it is needed for. */
  committed() {
    if (this.fallenBack || this.closed) return;
    if (Atomics.load(this.shared, FAILED) === 1) return this.fallBack();
    // Wraps as the shared Int32 does; a multiple of CHECKPOINT_EVERY stays one across the wrap.
    this.commits = (this.commits + 1) | 0;
    Atomics.store(this.shared, COMMITS, this.commits);
    if (this.commits % CHECKPOINT_EVERY !== 0) return;
    if (!this.worker && !this.start()) return;
    Atomics.notify(this.shared, COMMITS);
  }

  /** Whether the worker is in use (false once the writer went back to its own checkpoints). */
  get active() {
    return !this.fallenBack && !this.closed;
  }

  /** The worker's checkpoints so far. */
  counts(): CheckpointCounts {
    return {
      completed: Atomics.load(this.shared, COMPLETED),
      log: Atomics.load(this.shared, LAST_LOG),
      checkpointed: Atomics.load(this.shared, LAST_CHECKPOINTED),
    };
  }

  /** Resolves once the worker has finished more than `completed` checkpoints, or false if it stops first. */
  async after(completed: number): Promise<boolean> {
    for (;;) {
      if (Atomics.load(this.shared, COMPLETED) > completed) return true;
      if (!this.active || Atomics.load(this.shared, FAILED) === 1) return false;
      // Waits without blocking this thread (the worker notifies COMPLETED).
      await waitAsync(this.shared, COMPLETED, Atomics.load(this.shared, COMPLETED), 1_000).value;
    }
  }

  private start(): boolean {
    try {
      const worker = new Worker(WORKER_SOURCE, {
        eval: true,
        workerData: {
          driverPath: this.driverPath,
          slot: SLOT,
          path: this.path,
          busyTimeoutMs: this.busyTimeoutMs,
          shared: this.shared.buffer,
          every: CHECKPOINT_EVERY,
          idleLookMs: IDLE_LOOK_MS,
        },
      });
      // The worker never keeps a process alive: a process that is done exits, and SQLite's last connection to
      // close checkpoints what is left.
      worker.unref();
      worker.on("error", () => this.fallBack());
      worker.on("exit", () => {
        if (!this.closed) this.fallBack();
      });
      this.worker = worker;
      return true;
    } catch {
      this.fallBack();
      return false;
    }
  }

  private fallBack() {
    if (this.fallenBack || this.closed) return;
    this.fallenBack = true;
    this.setWriterAutoCheckpoint(SQLITE_DEFAULT_WAL_PAGES);
    // Not awaited: a failed worker is on its way out; close() waits for nothing more of it.
    void this.stopWorker();
  }

  private stopWorker() {
    const worker = this.worker;
    this.worker = null;
    if (!worker) return null;
    Atomics.store(this.shared, STOP, 1);
    Atomics.notify(this.shared, COMMITS);
    // Referenced again while it stops: a process awaiting close() must not end first for want of anything to wait on.
    worker.ref();
    return new Promise<void>((resolve) => worker.once("exit", () => resolve()));
  }

  /** Stops the worker after the checkpoint it may be running; the connections close after this. */
  async close() {
    if (this.closed) return;
    this.closed = true;
    await this.stopWorker();
  }
}
