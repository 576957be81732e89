import { EventEmitter } from "node:events";
import type { Clock } from "./clock";
import type { ListenConnection, SqlDriver, SqlExecutor } from "./sql/driver";

/**
 * What changed on a page, as the kernel announces it once the change is committed. Small on purpose:
 * it says "look again", never carries the data (a listener reads what it may see through the router).
 * - `write`: a command committed (page body, title, options, artifacts, revert);
 * - `proposal`: the proposals index changed (a dry run proposed an edit, or a proposal was rejected);
 * - `audit`: any other audit record (a read, a refusal).
 */
export interface PageChange {
  workspaceId: string;
  documentId: string;
  kind: "write" | "proposal" | "audit";
  auditId?: number;
  revision?: number;
  /** When it was announced (ms since the epoch; the audit record's time for a tailed change): the feed's lag. */
  announcedAt?: number;
}

export type PageChangeListener = (change: PageChange) => void;

/** How the write paths (write-transaction.ts, audit-records.ts) announce a change: `KernelChangeFeed.announce`. */
export type Announce = (db: SqlExecutor, change: PageChange) => Promise<void>;

/** How a process hears about committed changes, its own and (on PostgreSQL) every other instance's. */
export interface ChangeFeed {
  /** Calls `listener` for every committed change; answers the function that stops it. */
  subscribe(listener: PageChangeListener): () => void;
  /**
   * Whether changes from every writer reach this process right now. In process (SQLite, PGlite) always;
   * on PostgreSQL while the LISTEN connection is up. While false, a listener may have missed changes.
   */
  readonly connected: boolean;
  /** Calls `listener` when `connected` changes (a LISTEN connection lost or back). */
  onConnectionChange(listener: (connected: boolean) => void): () => void;
}

/** The PostgreSQL channel for a schema: tests isolate themselves in schemas of one database, and NOTIFY is per database. */
export function changeChannel(schema: string | null | undefined): string {
  return schema ? `mnote_changes_${schema}`.slice(0, 63) : "mnote_changes";
}

/** Reconnect delays for a lost LISTEN connection: quick at first, then every few seconds, never giving up. */
export const LISTEN_RETRY_MS = [100, 250, 500, 1_000, 2_000, 5_000] as const;

/**
 * SQLite has no NOTIFY, and a SQLite file is shared by the processes of one machine (the bridge and the panel
 * of `npm start`). While something in a process listens, it reads the audit records other processes committed
 * since it last looked, this often: one indexed range read that finds nothing most of the time.
 */
export const SQLITE_TAIL_MS = 25;

/** Every change writes an audit record: the tail of the audit log names them all. */
const TAIL_SQL = `SELECT a.id, a.at, a.workspace_id, a.document_id, a.effect, a.outcome, c.revision_after
  FROM audit_log a LEFT JOIN commands c ON c.id = a.command_id WHERE a.id > ? ORDER BY a.id LIMIT 500`;

interface TailRow {
  id: number | string;
  at: string;
  workspace_id: string | null;
  document_id: string | null;
  effect: string;
  outcome: string;
  revision_after: number | string | null;
}

function tailChange(row: TailRow): PageChange | null {
  if (!row.workspace_id || !row.document_id) return null;
  const kind =
    row.effect === "write"
      ? "write"
      : row.outcome === "proposal" || row.outcome === "held_for_approval" || row.outcome === "rejected"
        ? "proposal"
        : "audit";
  return {
    workspaceId: row.workspace_id,
    documentId: row.document_id,
    kind,
    auditId: Number(row.id),
    ...(kind === "write" && row.revision_after !== null ? { revision: Number(row.revision_after) } : {}),
    announcedAt: Date.parse(row.at),
  };
}

/** A change is announced from these fields only: no free text from the caller reaches the channel. */
function parseChange(payload: string): PageChange | null {
  try {
    const value = JSON.parse(payload) as Partial<PageChange>;
    if (typeof value.workspaceId !== "string" || typeof value.documentId !== "string") return null;
    if (value.kind !== "write" && value.kind !== "proposal" && value.kind !== "audit") return null;
    return {
      workspaceId: value.workspaceId,
      documentId: value.documentId,
      kind: value.kind,
      ...(typeof value.auditId === "number" ? { auditId: value.auditId } : {}),
      ...(typeof value.revision === "number" ? { revision: value.revision } : {}),
      ...(typeof value.announcedAt === "number" ? { announcedAt: value.announcedAt } : {}),
    };
  } catch {
    return null;
  }
}

/**
 * The kernel's change feed (decision 0017). Every committed write, audit record and proposals-index change
 * is announced through `announce`, called by the kernel inside the transaction that makes the change:
 * - PostgreSQL (a server): `pg_notify` in that transaction, which the server delivers on commit and drops
 *   on rollback, to every process LISTENing; each process keeps one LISTEN connection (opened on the first
 *   subscriber) and feeds what it hears to its listeners, its own writes included: one path for all.
 * - SQLite and PGlite: kept with the transaction and emitted after its commit resolves, so a listener that reads
 *   at once sees the change; a rolled-back transaction emits nothing. PGlite belongs to one process. A SQLite
 *   file may be shared by several (the bridge writes, the panel listens): while a process has listeners it also
 *   tails the audit log (SQLITE_TAIL_MS), so it hears the others' commits too. Its own then arrive twice, which
 *   costs a listener one extra look (panel.page.changes sends an event only when the page's cursor moved).
 */
export class KernelChangeFeed implements ChangeFeed {
  /** The driver the kernel writes through: transactions collect in-process announcements until they commit. */
  readonly driver: SqlDriver;
  private readonly emitter = new EventEmitter();
  private readonly pendingIn = new WeakMap<SqlExecutor, PageChange[]>();
  private readonly channel: string | null;
  private listening: ListenConnection | null = null;
  private starting: Promise<void> | null = null;
  private retryTimer: NodeJS.Timeout | null = null;
  private failures = 0;
  private closed = false;
  private up: boolean;
  private tailTimer: NodeJS.Timeout | null = null;
  /** The newest audit id the SQLite tail has seen; null until it first looks. */
  private tailFrom: number | null = null;

  constructor(
    private readonly inner: SqlDriver,
    private readonly clock: Clock,
  ) {
    // Any number of panel subscriptions share one emitter; Node's leak warning at 10 would be noise.
    this.emitter.setMaxListeners(0);
    this.channel = inner.listen ? changeChannel(inner.schema) : null;
    // PGlite: every writer is in this process. PostgreSQL: once LISTENing. SQLite: once the tail runs.
    this.up = this.channel === null && inner.dialect !== "sqlite";
    const pendingIn = this.pendingIn;
    const emit = (changes: PageChange[]) => {
      for (const change of changes) this.emit(change);
    };
    this.driver = {
      ...inner,
      async transaction(fn) {
        let pending: PageChange[] = [];
        let current: SqlExecutor | undefined;
        try {
          const result = await inner.transaction((tx) => {
            // A retried attempt (serialization failure) starts over: only the attempt that commits announces.
            pending = [];
            current = tx;
            pendingIn.set(tx, pending);
            return fn(tx);
          });
          emit(pending);
          return result;
        } finally {
          // SQLite hands every transaction the same executor: what it collected must not outlive this one.
          if (current) pendingIn.delete(current);
        }
      },
    };
  }

  get connected() {
    return this.up;
  }

  /** Listeners subscribed right now (open panel streams, in a panel process). */
  get subscribers(): number {
    return this.emitter.listenerCount("change");
  }

  /**
   * Announce `change` as part of what `db` is doing: inside a transaction (the `tx` the kernel's driver
   * handed out) it is delivered on commit; on the driver itself the statement before it already committed.
   */
  readonly announce: Announce = async (db, announced) => {
    const change: PageChange = { ...announced, announcedAt: this.clock.now().getTime() };
    if (this.channel !== null) {
      await db.run(`SELECT pg_notify(?, ?)`, [this.channel, JSON.stringify(change)]);
      return;
    }
    const pending = this.pendingIn.get(db);
    if (pending) pending.push(change);
    else this.emit(change);
  };

  subscribe(listener: PageChangeListener): () => void {
    this.emitter.on("change", listener);
    if (this.channel !== null) this.startListening();
    if (this.inner.dialect === "sqlite") this.startTail();
    return () => {
      this.emitter.off("change", listener);
    };
  }

  onConnectionChange(listener: (connected: boolean) => void): () => void {
    this.emitter.on("connection", listener);
    return () => {
      this.emitter.off("connection", listener);
    };
  }

  /** Stop listening. The kernel's `close` calls this before it closes the driver. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = null;
    if (this.tailTimer) clearTimeout(this.tailTimer);
    this.tailTimer = null;
    await this.starting?.catch(() => undefined);
    const listening = this.listening;
    this.listening = null;
    await listening?.close().catch(() => undefined);
    this.emitter.removeAllListeners();
  }

  private emit(change: PageChange) {
    // A listener that throws must not stop the others, nor the write that announced the change.
    for (const listener of this.emitter.listeners("change") as PageChangeListener[]) {
      try {
        listener(change);
      } catch (error) {
        console.error("[kernel] a change listener failed", error);
      }
    }
  }

  /**
   * Reads what other processes committed to the SQLite file while anyone here listens, and stops when nobody
   * does. `connected` turns true once the tail knows where the log ends: from then on nothing is missed.
   */
  private startTail() {
    if (this.closed || this.tailTimer) return;
    this.scheduleTail(0);
  }

  private scheduleTail(delayMs: number) {
    this.tailTimer = setTimeout(() => void this.readTail(), delayMs);
    this.tailTimer.unref();
  }

  private async readTail() {
    try {
      if (this.tailFrom === null) {
        // Listening starts now: what was committed before is what the listener reads anyway.
        this.tailFrom = Number(
          (await this.inner.get<{ id: number | string | null }>(`SELECT MAX(id) AS id FROM audit_log`))?.id ?? 0,
        );
        this.setConnected(true);
      } else {
        for (const row of await this.inner.all<TailRow>(TAIL_SQL, [this.tailFrom])) {
          this.tailFrom = Number(row.id);
          const change = tailChange(row);
          if (change) this.emit(change);
        }
      }
    } catch {
      // The file busy or closing: the next look reads from the same id, so nothing is skipped.
    }
    this.tailTimer = null;
    if (!this.closed && this.subscribers > 0) return this.scheduleTail(SQLITE_TAIL_MS);
    this.tailFrom = null;
    this.setConnected(false);
  }

  private setConnected(connected: boolean) {
    if (this.up === connected) return;
    this.up = connected;
    this.emitter.emit("connection", connected);
  }

  private startListening() {
    if (this.closed || this.listening || this.starting || this.retryTimer) return;
    this.starting = this.inner.listen!(this.channel!, {
      onNotification: (payload) => {
        const change = parseChange(payload);
        if (change) this.emit(change);
      },
      onLost: () => this.lost(),
    }).then(
      (connection) => {
        this.starting = null;
        if (this.closed) {
          void connection.close().catch(() => undefined);
          return;
        }
        this.listening = connection;
        this.failures = 0;
        this.setConnected(true);
      },
      () => {
        this.starting = null;
        this.scheduleRetry();
      },
    );
  }

  /** The LISTEN connection dropped (server restart, pg_terminate_backend, network): listeners hear `connected: false`. */
  private lost() {
    const listening = this.listening;
    this.listening = null;
    void listening?.close().catch(() => undefined);
    this.setConnected(false);
    this.scheduleRetry();
  }

  private scheduleRetry() {
    if (this.closed || this.retryTimer) return;
    const delay = LISTEN_RETRY_MS[Math.min(this.failures, LISTEN_RETRY_MS.length - 1)]!;
    this.failures += 1;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      this.startListening();
    }, delay);
    // A retry pending must not keep a process alive that has nothing else to do.
    this.retryTimer.unref();
  }
}
