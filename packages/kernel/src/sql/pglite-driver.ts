import { PGlite, type Transaction } from "@electric-sql/pglite";
import type { SqlDriver, SqlExecutor, SqlValue } from "./driver";
import {
  asParams,
  checkSchemaName,
  INT8_OID,
  mapPostgresError,
  parseInt8,
  toPostgresPlaceholders,
} from "./postgres-dialect";

export interface PgliteOptions {
  /** A directory to keep the database in; omit for memory. Ignored when `instance` is given. */
  dataDir?: string;
  /**
   * Share one PGlite between several drivers (tests: starting PGlite takes seconds,
   * a schema takes milliseconds). The driver does not close a shared instance.
   */
  instance?: PGlite;
  /** Keep every table in this schema (created if missing). */
  schema?: string;
  /** Drop `schema` (CASCADE) when the driver closes. */
  dropSchemaOnClose?: boolean;
}

const QUERY_OPTIONS = { parsers: { [INT8_OID]: parseInt8 } };

type Queryable = Pick<Transaction, "query">;

class PgliteExecutor implements SqlExecutor {
  constructor(private readonly db: Queryable) {}

  private async query<T>(sql: string, params: SqlValue[] | undefined) {
    try {
      return await this.db.query<T>(toPostgresPlaceholders(sql), asParams(params), QUERY_OPTIONS);
    } catch (error) {
      throw mapPostgresError(error);
    }
  }
  async all<T>(sql: string, params?: SqlValue[]) {
    return (await this.query<T>(sql, params)).rows;
  }
  async get<T>(sql: string, params?: SqlValue[]) {
    return (await this.query<T>(sql, params)).rows[0];
  }
  async run(sql: string, params?: SqlValue[]) {
    return { changes: (await this.query(sql, params)).affectedRows ?? 0 };
  }
}

/**
 * One queue per PGlite instance. PGlite is a single connection, so the drivers
 * sharing it take turns; each turn first points `search_path` at its driver's
 * schema (outside any transaction, so a rollback cannot undo it).
 */
interface InstanceState {
  queue: Promise<unknown>;
  searchPath: string | null;
}
const instances = new WeakMap<PGlite, InstanceState>();

/**
 * PostgreSQL compiled to WebAssembly, in process: the kernel's PostgreSQL SQL runs
 * on any machine, no server needed. Like the SQLite driver it runs one
 * transaction at a time, and plain reads wait for the running transaction so
 * they never see its uncommitted rows.
 */
export async function openPgliteDriver(options: PgliteOptions = {}): Promise<SqlDriver> {
  const schema = options.schema === undefined ? null : checkSchemaName(options.schema);
  const owned = !options.instance;
  const db = options.instance ?? (await PGlite.create(options.dataDir ? { dataDir: options.dataDir } : {}));
  let state = instances.get(db);
  if (!state) {
    state = { queue: Promise.resolve(), searchPath: null };
    instances.set(db, state);
  }
  const shared = state;

  const turn = <T>(fn: () => Promise<T>): Promise<T> => {
    const run = async () => {
      if (shared.searchPath !== schema) {
        await db.exec(schema ? `SET search_path TO "${schema}"` : `SET search_path TO DEFAULT`);
        shared.searchPath = schema;
      }
      return fn();
    };
    const next = shared.queue.then(run, run);
    shared.queue = next.catch(() => undefined);
    return next;
  };

  if (schema) await turn(() => db.exec(`CREATE SCHEMA IF NOT EXISTS "${schema}"`));
  const direct = new PgliteExecutor(db);
  let closed = false;

  return {
    dialect: "postgres",
    forUpdate: " FOR UPDATE",
    all: (sql, params) => turn(() => direct.all(sql, params)),
    get: (sql, params) => turn(() => direct.get(sql, params)),
    insertReturning: (sql, params) => turn(() => direct.get(sql, params)),
    run: (sql, params) => turn(() => direct.run(sql, params)),
    transaction<T>(fn: (tx: SqlExecutor) => Promise<T>) {
      // PGlite's transaction() sends BEGIN, COMMIT (refusing a COMMIT that answers ROLLBACK) and ROLLBACK on a throw.
      return turn(() =>
        db
          .transaction((tx) => fn(new PgliteExecutor(tx)))
          .catch((error: unknown) => {
            throw mapPostgresError(error);
          }),
      );
    },
    async exec(script) {
      await turn(() => db.exec(script));
    },
    withMigrationLock(fn) {
      // One connection, and transactions already take turns: nobody can migrate alongside.
      return fn();
    },
    async close() {
      if (closed) return;
      closed = true;
      if (schema && options.dropSchemaOnClose) {
        await turn(async () => {
          await db.exec(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
        });
      } else {
        await turn(async () => undefined);
      }
      if (owned) await db.close();
    },
  };
}
