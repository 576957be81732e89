import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import Database from "better-sqlite3";
import { type SqlDriver, type SqlExecutor, type SqlValue, UniqueViolation } from "./driver";
import { WalCheckpoints } from "./sqlite-checkpoints";

function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: string } | null)?.code;
  return code === "SQLITE_CONSTRAINT_UNIQUE" || code === "SQLITE_CONSTRAINT_PRIMARYKEY";
}

class StatementCache implements SqlExecutor {
  private readonly statements = new Map<string, Database.Statement>();
  constructor(private readonly db: Database.Database) {}

  private prepare(sql: string) {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }
  async all<T>(sql: string, params: SqlValue[] = []) {
    return this.prepare(sql).all(...params) as T[];
  }
  async get<T>(sql: string, params: SqlValue[] = []) {
    return this.prepare(sql).get(...params) as T | undefined;
  }
  async run(sql: string, params: SqlValue[] = []) {
    try {
      return { changes: this.prepare(sql).run(...params).changes };
    } catch (error) {
      if (isUniqueViolation(error)) throw new UniqueViolation(error);
      throw error;
    }
  }
}

export interface SqliteOptions {
  /** Milliseconds a writer waits for another process's lock before failing. */
  busyTimeoutMs?: number;
  /**
   * Run WAL checkpoints on a worker thread (decision 0051; default true for a file). False leaves them to SQLite,
   * inside the commit that crosses 1,000 WAL pages.
   */
  checkpointWorker?: boolean;
}

/** A SQLite driver, with the worker that checkpoints its WAL when it has one. */
export type SqliteDriver = SqlDriver & { readonly checkpoints: WalCheckpoints | null };

/**
 * better-sqlite3 is synchronous, but kernel transactions are async functions. Two
 * connections keep them apart: transactions run one at a time on the writer (a
 * promise queue). A plain read runs on the writer too when no transaction is open
 * there (its page cache is warm: SQLite drops a connection's cache whenever another
 * connection has written), and on the reader while one is, so it never sees a
 * half-done transaction of another call.
 */
export function openSqliteDriver(path: string, options: SqliteOptions = {}): SqliteDriver {
  if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
  const busyTimeoutMs = options.busyTimeoutMs ?? 5000;
  const open = () => {
    const db = new Database(path);
    db.pragma(`busy_timeout = ${busyTimeoutMs}`);
    db.pragma("journal_mode = WAL");
    // NORMAL in WAL mode survives a process crash (SIGKILL); only power loss can drop the last commits.
    db.pragma("synchronous = NORMAL");
    db.pragma("foreign_keys = ON");
    // A deleted row's bytes are zeroed, not left in a free page to be read with `strings` (issue 38: a run's
    // words swept from the run lines must not linger in the file).
    db.pragma("secure_delete = ON");
    return db;
  };
  const writer = open();
  // An in-memory database cannot be shared between connections; use the writer for both.
  const reader = path === ":memory:" ? writer : open();
  const checkpoints =
    path === ":memory:" || options.checkpointWorker === false
      ? null
      : new WalCheckpoints(path, (pages) => writer.pragma(`wal_autocheckpoint = ${pages}`), busyTimeoutMs);
  const writeStatements = new StatementCache(writer);
  const readStatements = new StatementCache(reader);
  let queue: Promise<unknown> = Promise.resolve();
  // Prepared once: a transaction's BEGIN and COMMIT are on every write's path.
  const begin = writer.prepare("BEGIN IMMEDIATE");
  const commit = writer.prepare("COMMIT");
  const rollback = writer.prepare("ROLLBACK");
  /** A transaction is open on the writer: reads must not see its uncommitted rows. */
  let busy = false;

  /** A write on the writer: it commits (or fails) before the next one starts. */
  const serialize = <T>(fn: () => Promise<T>): Promise<T> => {
    const write = () => fn().finally(() => checkpoints?.committed());
    const next = queue.then(write, write);
    queue = next.catch(() => undefined);
    return next;
  };

  return {
    checkpoints,
    dialect: "sqlite",
    forUpdate: "",
    all: (sql, params) => (busy ? readStatements.all(sql, params) : writeStatements.all(sql, params)),
    get: (sql, params) => (busy ? readStatements.get(sql, params) : writeStatements.get(sql, params)),
    // A lone write outside a transaction still waits its turn on the writer.
    run: (sql, params) => serialize(() => writeStatements.run(sql, params)),
    insertReturning: (sql, params) => serialize(() => writeStatements.get(sql, params)),
    transaction<T>(fn: (tx: SqlExecutor) => Promise<T>) {
      return serialize(async () => {
        // IMMEDIATE takes the write lock up front, so two processes never deadlock upgrading a read lock.
        begin.run();
        busy = true;
        try {
          const result = await fn(writeStatements);
          commit.run();
          return result;
        } catch (error) {
          if (writer.inTransaction) rollback.run();
          throw error;
        } finally {
          busy = false;
        }
      });
    },
    async exec(script) {
      await serialize(async () => writer.exec(script));
    },
    withMigrationLock(fn) {
      // SQLite's own write lock serializes migrating processes; the migration runner checks versions inside it.
      return fn();
    },
    async close() {
      await serialize(async () => undefined);
      await checkpoints?.close();
      if (reader !== writer) reader.close();
      writer.close();
    },
  };
}
