export * from "./types";
export { SqlKernel } from "./sql-kernel";
export { openKernel, openDriver, DEFAULT_DATABASE_URL } from "./open";
export { openSqliteDriver } from "./sql/sqlite-driver";
export type { SqlDriver, SqlExecutor } from "./sql/driver";
export { migrate, LATEST_SCHEMA_VERSION, BUSINESS_TABLES } from "./migrations";
export { hashToken } from "./ids";
