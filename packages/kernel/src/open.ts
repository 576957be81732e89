import { resolve } from "node:path";
import { SqlKernel } from "./sql-kernel";
import { openSqliteDriver } from "./sql/sqlite-driver";
import type { SqlDriver } from "./sql/driver";

export const DEFAULT_DATABASE_URL = "file:./.mnote/mnote.db";

/** Where the data lives, from `MNOTE_DATABASE_URL`: `file:PATH` (SQLite) or `postgres://…`. */
export async function openDriver(url: string = process.env.MNOTE_DATABASE_URL ?? DEFAULT_DATABASE_URL): Promise<SqlDriver> {
  if (url.startsWith("file:")) {
    const path = url.slice("file:".length);
    return openSqliteDriver(path === ":memory:" ? path : resolve(path));
  }
  if (url === ":memory:") return openSqliteDriver(":memory:");
  if (url.startsWith("postgres://") || url.startsWith("postgresql://")) {
    const { openPostgresDriver } = await import("./sql/postgres-driver");
    return openPostgresDriver(url);
  }
  throw new Error(`MNOTE_DATABASE_URL must start with file: or postgres:// (got ${url.split(":")[0]}:…)`);
}

/** Open (and migrate) the kernel named by a database URL. */
export async function openKernel(url?: string): Promise<SqlKernel> {
  return SqlKernel.open(await openDriver(url));
}
