import pg from "pg";
import type { SqlDriver, SqlExecutor, SqlValue } from "./driver";
import {
  asParams,
  checkSchemaName,
  INT8_OID,
  isRetryableTransactionError,
  mapPostgresError,
  parseInt8,
  retryDelayMs,
  sleep,
  sqlState,
  toPostgresPlaceholders,
} from "./postgres-dialect";

export interface PostgresOptions {
  /** Connections this process keeps to the server (a process's MNOTE_PG_POOL_MAX). Default 10. */
  poolMax?: number;
  /** Server-side limit for one statement, in ms, 0 = none (a process's MNOTE_PG_STATEMENT_TIMEOUT_MS). Default 5000. */
  statementTimeoutMs?: number;
  /** How often a transaction that hit a serialization failure or deadlock runs again. Default 5. */
  maxTransactionRetries?: number;
  /** How long to wait for a free pooled connection, in ms. Default 30000. */
  connectionTimeoutMs?: number;
  /** How long an instance waits for another one's migrations, in ms. Default 120000. */
  migrationLockTimeoutMs?: number;
  /** Put every table in this schema (created if missing) instead of the server's default search_path; also `?schema=` in the URL. */
  schema?: string;
  /** Drop `schema` (CASCADE) when the driver closes: for tests that isolate themselves. */
  dropSchemaOnClose?: boolean;
  /** Shown in pg_stat_activity. Default "mnote". */
  applicationName?: string;
}

/** Advisory-lock class for "migrating"; the second key is the schema, so isolated test schemas do not wait on each other. */
const MIGRATION_LOCK_CLASS = 0x6d6e6f74; // "mnot"

// pg-types declares its parsers as returning `any`; the assertion below says what they are.
const textParser = (oid: number, format?: "text" | "binary") =>
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion
  pg.types.getTypeParser(oid, format as "text") as (value: string) => unknown;

const int8AsNumber: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: "text" | "binary") =>
    oid === INT8_OID && format !== "binary"
      ? parseInt8
      : textParser(oid, format)) as pg.CustomTypesConfig["getTypeParser"],
};

/** Failed statements and connection errors of one driver, for its `poolStats` (metrics). */
interface ErrorCount {
  errors: number;
}

class ClientExecutor implements SqlExecutor {
  constructor(
    private readonly client: pg.Pool | pg.PoolClient | pg.Client,
    private readonly count: ErrorCount = { errors: 0 },
  ) {}

  private async query<T>(sql: string, params: SqlValue[] | undefined) {
    try {
      return await this.client.query<T & pg.QueryResultRow>(toPostgresPlaceholders(sql), asParams(params));
    } catch (error) {
      this.count.errors += 1;
      throw mapPostgresError(error);
    }
  }
  async all<T>(sql: string, params?: SqlValue[]) {
    return (await this.query<T>(sql, params)).rows as T[];
  }
  async get<T>(sql: string, params?: SqlValue[]) {
    return (await this.query<T>(sql, params)).rows[0] as T | undefined;
  }
  async run(sql: string, params?: SqlValue[]) {
    return { changes: (await this.query(sql, params)).rowCount ?? 0 };
  }
}

/**
 * node-postgres over a connection pool. Every instance of the bridge or panel
 * opens one of these on the same database; correctness between them comes from
 * the database (row locks via `forUpdate`, unique constraints, the migration
 * advisory lock), never from process memory.
 */
export async function openPostgresDriver(url: string, options: PostgresOptions = {}): Promise<SqlDriver> {
  const statementTimeoutMs = options.statementTimeoutMs ?? 5000;
  const poolMax = options.poolMax ?? 10;
  if (poolMax < 1) throw new Error("the PostgreSQL pool needs at least one connection (poolMax, MNOTE_PG_POOL_MAX)");
  const maxRetries = options.maxTransactionRetries ?? 5;
  // `?schema=NAME` in the URL does what the `schema` option does (an explicit option wins).
  const parsed = new URL(url);
  const schemaParam = parsed.searchParams.get("schema");
  if (schemaParam !== null) {
    parsed.searchParams.delete("schema");
    url = parsed.toString();
  }
  const schemaName = options.schema ?? schemaParam ?? undefined;
  const schema = schemaName === undefined ? undefined : checkSchemaName(schemaName);

  const base: pg.ClientConfig = {
    connectionString: url,
    application_name: options.applicationName ?? "mnote",
    types: int8AsNumber,
  };
  // Statement timeout and search_path travel in the start-up packet, so every pooled connection has them from the first query.
  const sessionConfig: pg.ClientConfig = {
    ...base,
    ...(statementTimeoutMs > 0 ? { statement_timeout: statementTimeoutMs } : {}),
    ...(schema ? { options: `-c search_path=${schema}` } : {}),
  };

  const oneOff = async <T>(config: pg.ClientConfig, fn: (client: pg.Client) => Promise<T>): Promise<T> => {
    const client = new pg.Client(config);
    client.on("error", () => undefined); // a dropped connection surfaces on the pending query instead
    await client.connect();
    try {
      return await fn(client);
    } finally {
      await client.end().catch(() => undefined);
    }
  };

  if (schema) {
    await oneOff(base, async (client) => {
      try {
        await client.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
      } catch (error) {
        // Two instances creating the schema at the same moment: the loser sees a duplicate; the schema exists either way.
        if (sqlState(error) !== "23505" && sqlState(error) !== "42P06") throw error;
      }
    });
  }

  const pool = new pg.Pool({
    ...sessionConfig,
    max: poolMax,
    connectionTimeoutMillis: options.connectionTimeoutMs ?? 30_000,
    idleTimeoutMillis: 10_000,
  });
  // An idle connection the server closed must not crash the process; the pool replaces it.
  const count: ErrorCount = { errors: 0 };
  pool.on("error", () => {
    count.errors += 1;
  });
  // pg-pool hands a released connection to the next waiter while pg is still parsing the chunk that finished the
  // last query, and the waiter's own listener comes a microtask later. A FATAL in that same chunk (pg_terminate_backend,
  // a shutdown) is then an `error` event nobody hears, which ends the process: seen under load in the database-fault
  // suite. So every connection keeps one listener for its whole life; the statement that next uses it fails, and the
  // transaction releases it as broken (below).
  pool.on("connect", (client) => client.on("error", () => undefined));
  const direct = new ClientExecutor(pool, count);

  async function attempt<T>(fn: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    const client = await pool.connect();
    let broken: Error | undefined;
    // pg-pool listens for `error` on idle connections only. A checked-out one that the server
    // drops (pg_terminate_backend, a restart, a network cut) emits `error` too, and an `error`
    // event nobody listens to ends the process. The pending query fails with the same error, so
    // noting it here is enough: the transaction fails, and the connection is destroyed on release.
    const onConnectionLost = (error: Error) => {
      broken ??= error;
    };
    client.on("error", onConnectionLost);
    try {
      await client.query("BEGIN");
      const result = await fn(new ClientExecutor(client, count));
      const commit = await client.query("COMMIT");
      // COMMIT of a transaction that already failed answers ROLLBACK instead of raising: never report that as success.
      if (commit.command === "ROLLBACK") throw new Error("transaction was rolled back by the server");
      return result;
    } catch (error) {
      await client.query("ROLLBACK").catch((rollbackError: Error) => {
        broken ??= rollbackError;
      });
      throw mapPostgresError(error);
    } finally {
      // A connection that was lost, or whose ROLLBACK failed, is in an unknown state: destroy it
      // rather than hand it to the next caller. From here the pool's own idle listener takes over.
      client.off("error", onConnectionLost);
      client.release(broken);
    }
  }

  return {
    dialect: "postgres",
    forUpdate: " FOR UPDATE",
    schema: schema ?? null,
    async listen(channel, handlers) {
      // Outside the pool: a LISTEN holds its connection for the process's life, and must not take a slot calls need.
      const client = new pg.Client({
        ...base,
        application_name: `${base.application_name ?? "mnote"} listen`,
        keepAlive: true,
      });
      let lost = false;
      const loseOnce = (error: Error) => {
        if (lost) return;
        lost = true;
        handlers.onLost(error);
      };
      client.on("error", loseOnce);
      client.on("end", () => loseOnce(new Error("the LISTEN connection ended")));
      client.on("notification", (message) => {
        if (message.channel === channel && message.payload !== undefined) handlers.onNotification(message.payload);
      });
      try {
        await client.connect();
        await client.query(`LISTEN "${channel.replace(/"/g, '""')}"`);
      } catch (error) {
        lost = true;
        await client.end().catch(() => undefined);
        throw error;
      }
      // A socket that only listens must not keep the process alive after everything else has finished.
      (client as unknown as { connection?: { stream?: { unref?: () => void } } }).connection?.stream?.unref?.();
      return {
        async close() {
          lost = true;
          await client.end().catch(() => undefined);
        },
      };
    },
    poolStats: () => ({
      total: pool.totalCount,
      idle: pool.idleCount,
      waiting: pool.waitingCount,
      errors: count.errors,
    }),
    all: (sql, params) => direct.all(sql, params),
    get: (sql, params) => direct.get(sql, params),
    insertReturning: (sql, params) => direct.get(sql, params),
    run: (sql, params) => direct.run(sql, params),
    async transaction<T>(fn: (tx: SqlExecutor) => Promise<T>): Promise<T> {
      for (let retry = 0; ; retry++) {
        try {
          return await attempt(fn);
        } catch (error) {
          if (!isRetryableTransactionError(error) || retry >= maxRetries) throw error;
          await sleep(retryDelayMs(retry));
        }
      }
    },
    async exec(script) {
      await pool.query(script);
    },
    async withMigrationLock(fn) {
      // A dedicated connection outside the pool: holding the lock must not take a slot the migrations themselves need.
      const lockConfig: pg.ClientConfig = {
        ...sessionConfig,
        statement_timeout: options.migrationLockTimeoutMs ?? 120_000,
      };
      const waitMs = options.migrationLockTimeoutMs ?? 120_000;
      return oneOff(lockConfig, async (client) => {
        const key = `$1, hashtext(coalesce(current_schema(), ''))`;
        // Try, never block: a statement blocked on the lock is an open transaction, and the holder's online
        // migration (CREATE INDEX CONCURRENTLY) waits for every older transaction of the database — each instance
        // would wait for the other, a deadlock across sessions that PostgreSQL cannot see.
        for (const started = Date.now(); ;) {
          const got = await client.query<{ ok: boolean }>(`SELECT pg_try_advisory_lock(${key}) AS ok`, [
            MIGRATION_LOCK_CLASS,
          ]);
          if (got.rows[0]?.ok) break;
          if (Date.now() - started > waitMs) {
            throw new Error(`another instance held the migration lock for over ${waitMs} ms`);
          }
          await sleep(100);
        }
        try {
          return await fn();
        } finally {
          // Ending the session would release it too; unlock explicitly so the next waiter goes at once.
          await client.query(`SELECT pg_advisory_unlock(${key})`, [MIGRATION_LOCK_CLASS]).catch(() => undefined);
        }
      });
    },
    session(fn) {
      // Outside the pool (a long sweep must not hold a slot a tool call waits for) and without its statement timeout:
      // the job bounds itself (batches, lock_timeout). Statements autocommit; the session's advisory locks end with it.
      const { statement_timeout: _unbounded, ...config } = sessionConfig;
      return oneOff(config, (client) => fn(new ClientExecutor(client, count)));
    },
    async close() {
      await pool.end();
      if (schema && options.dropSchemaOnClose) {
        await oneOff(base, (client) => client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`));
      }
    },
  };
}
