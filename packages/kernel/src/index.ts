export * from "./types";
export { SqlKernel } from "./sql-kernel";
export { openKernel, openDriver, openPostgresDriver, openPgliteDriver, DEFAULT_DATABASE_URL } from "./open";
export { openSqliteDriver, type SqliteOptions } from "./sql/sqlite-driver";
export type { PostgresOptions } from "./sql/postgres-driver";
export type { PgliteOptions } from "./sql/pglite-driver";
export { type SqlDriver, type SqlExecutor, type SqlValue, UniqueViolation } from "./sql/driver";
export { migrate, LATEST_SCHEMA_VERSION, BUSINESS_TABLES } from "./migrations";
export { hashToken } from "./ids";
