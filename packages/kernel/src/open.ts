import { resolve } from "node:path";
import type { Clock } from "./clock";
import { SqlKernel } from "./sql-kernel";
import { openSqliteDriver } from "./sql/sqlite-driver";
import type { SqlDriver } from "./sql/driver";
import type { PgliteOptions } from "./sql/pglite-driver";
import type { PostgresOptions } from "./sql/postgres-driver";

/** Where a checkout keeps its SQLite database when MNOTE_DATABASE_URL is not set, relative to the checkout's root. */
export const DEFAULT_DATABASE_FILE = ".mnote/mnote.db";

/** The default database URL: relative to the working directory, or to `root` when a process runs elsewhere in the checkout. */
export function defaultDatabaseUrl(root?: string): string {
  return `file:${root === undefined ? `./${DEFAULT_DATABASE_FILE}` : resolve(root, DEFAULT_DATABASE_FILE)}`;
}

export const DEFAULT_DATABASE_URL = defaultDatabaseUrl();

/** How to open a database besides its URL: each process reads these from its validated configuration. */
export interface OpenOptions {
  /** For `postgres://` URLs: pool size and statement timeout (MNOTE_PG_POOL_MAX, MNOTE_PG_STATEMENT_TIMEOUT_MS). */
  postgres?: Pick<PostgresOptions, "poolMax" | "statementTimeoutMs">;
  /** Where the kernel takes the time from (clock.ts); the wall clock unless a test moves its own. */
  clock?: Clock;
}

/**
 * Where the data lives, from the URL a process's configuration read (`MNOTE_DATABASE_URL`); the kernel reads no
 * environment itself:
 * - `file:PATH` (or `:memory:`): SQLite, one machine;
 * - `postgres://…` / `postgresql://…`: a PostgreSQL server shared by any number of instances;
 * - `pglite:` (memory) or `pglite:PATH`: PostgreSQL in process (PGlite), for trying the PostgreSQL SQL without a server.
 */
export async function openDriver(url: string = DEFAULT_DATABASE_URL, options: OpenOptions = {}): Promise<SqlDriver> {
  if (url.startsWith("file:")) {
    const path = url.slice("file:".length);
    return openSqliteDriver(path === ":memory:" ? path : resolve(path));
  }
  if (url === ":memory:") return openSqliteDriver(":memory:");
  if (url.startsWith("postgres://") || url.startsWith("postgresql://")) {
    return openPostgresDriver(url, options.postgres);
  }
  if (url.startsWith("pglite:")) {
    const path = url.slice("pglite:".length);
    return openPgliteDriver(path === "" || path === "memory" || path === ":memory:" ? {} : { dataDir: resolve(path) });
  }
  throw new Error(
    `MNOTE_DATABASE_URL must start with file:, postgres://, postgresql:// or pglite: (got ${url.split(":")[0]}:…)`,
  );
}

// The PostgreSQL clients load on first use, so a SQLite-only process (the CLI, one bridge) starts without them.

/** node-postgres pool driver; see `PostgresOptions` for pool size, statement timeout and schema. */
export async function openPostgresDriver(url: string, options?: PostgresOptions): Promise<SqlDriver> {
  return (await import("./sql/postgres-driver")).openPostgresDriver(url, options);
}

/** PGlite (PostgreSQL in WebAssembly, in process) driver: memory unless `dataDir` is given. */
export async function openPgliteDriver(options?: PgliteOptions): Promise<SqlDriver> {
  return (await import("./sql/pglite-driver")).openPgliteDriver(options);
}

/** Open (and migrate) the kernel named by a database URL. */
export async function openKernel(url?: string, options?: OpenOptions): Promise<SqlKernel> {
  return SqlKernel.open(await openDriver(url, options), { clock: options?.clock });
}
