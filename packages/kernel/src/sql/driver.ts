export type SqlValue = string | number | null;

/** What a query can run on: the driver itself or an open transaction. */
export interface SqlExecutor {
  all<T>(sql: string, params?: SqlValue[]): Promise<T[]>;
  get<T>(sql: string, params?: SqlValue[]): Promise<T | undefined>;
  run(sql: string, params?: SqlValue[]): Promise<{ changes: number }>;
}

/**
 * The kernel's whole view of a database. Queries are written once, with `?`
 * placeholders, in the SQL that SQLite and PostgreSQL share; a driver adapts the
 * placeholders and the few dialect words below.
 */
export interface SqlDriver extends SqlExecutor {
  readonly dialect: "sqlite" | "postgres";
  /** Appended to a SELECT that must lock the row it reads (PostgreSQL); SQLite's write lock covers it. */
  readonly forUpdate: string;
  /**
   * One INSERT … RETURNING on its own, outside a transaction. On SQLite it waits its turn on the
   * writer like `run`: through `get` it would go to the reader connection while another call's
   * transaction is open, and block the process on the write lock until the busy timeout.
   */
  insertReturning<T>(sql: string, params?: SqlValue[]): Promise<T | undefined>;
  /** Run `fn` in one write transaction; retried by the driver on serialization failures. */
  transaction<T>(fn: (tx: SqlExecutor) => Promise<T>): Promise<T>;
  /** Schema scripts: several statements, no parameters. */
  exec(script: string): Promise<void>;
  /** Run the migrations exactly once even when several processes start together. */
  withMigrationLock<T>(fn: () => Promise<T>): Promise<T>;
  /**
   * Run `fn` on one session of its own for long maintenance (retention sweeps, an online migration's index build):
   * on PostgreSQL a dedicated connection outside the pool, without the pool's statement timeout, so session
   * settings (`lock_timeout`) and advisory locks stay on it and it takes no slot a tool call needs. Each statement on
   * it commits on its own. Absent on an in-process database (SQLite, PGlite): there the driver itself is the session,
   * its statements taking turns with the calls', and a transaction must be the driver's own (`inSession`).
   */
  session?<T>(fn: (session: SqlExecutor) => Promise<T>): Promise<T>;
  close(): Promise<void>;
  /**
   * A server database only (PostgreSQL): open one dedicated connection that LISTENs on `channel`.
   * `onLost` is called once if the connection fails later; reconnecting is the caller's (change-feed.ts).
   */
  listen?(channel: string, handlers: ListenHandlers): Promise<ListenConnection>;
  /** The schema the tables live in when not the server's default (names the change channel). */
  readonly schema?: string | null;
  /** A pooled driver (PostgreSQL): its connections now, and how many statements and connections failed so far. */
  poolStats?(): PoolStats;
}

export interface PoolStats {
  /** Connections open (idle or lent out). */
  total: number;
  idle: number;
  /** Callers waiting for a connection. */
  waiting: number;
  /** Failed statements and connection errors since the driver opened (monotonic). */
  errors: number;
}

export interface ListenHandlers {
  onNotification(payload: string): void;
  onLost(error: Error): void;
}

export interface ListenConnection {
  close(): Promise<void>;
}

/** Raised by a driver for a unique-constraint violation, whatever the dialect calls it. */
export class UniqueViolation extends Error {
  constructor(cause: unknown) {
    super("unique constraint violated", { cause });
    this.name = "UniqueViolation";
  }
}

/** `fn` on the driver's maintenance session (`SqlDriver.session`), or on the driver itself where it has none. */
export function inSession<T>(db: SqlDriver, fn: (session: SqlExecutor) => Promise<T>): Promise<T> {
  return db.session ? db.session(fn) : fn(db);
}
