export * from "./types";
export { type KernelOptions, SqlKernel } from "./sql-kernel";
export { type Clock, ManualClock, systemClock } from "./clock";
export {
  type ChangeFeed,
  changeChannel,
  KernelChangeFeed,
  type PageChange,
  type PageChangeListener,
} from "./change-feed";
export {
  openKernel,
  openDriver,
  openPostgresDriver,
  openPgliteDriver,
  DEFAULT_DATABASE_URL,
  defaultDatabaseUrl,
  type OpenOptions,
} from "./open";
export { type CheckpointCounts, WalCheckpoints } from "./sql/sqlite-checkpoints";
export { openSqliteDriver, type SqliteDriver, type SqliteOptions } from "./sql/sqlite-driver";
export type { PostgresOptions } from "./sql/postgres-driver";
export type { PgliteOptions } from "./sql/pglite-driver";
export { type PoolStats, type SqlDriver, type SqlExecutor, type SqlValue, UniqueViolation } from "./sql/driver";
export { migrate, LATEST_SCHEMA_VERSION, BUSINESS_TABLES } from "./migrations";
export { hashToken, isTokenLive, sha256Hex } from "./ids";
export { revertedCommandId, revertKeyPrefix } from "./reads";
export { copyDatabase, CopyRefused, type CopyOptions, type CopyReport } from "./copy";
export {
  applyBlockEdits,
  blockIdsNamed,
  type BlockEditOperation,
  EditRejected,
  type LocatedBlock,
  replaceBlock,
  simulateBlockEdits,
  undoBlockEdits,
} from "./block-edits";
export { normalizeEmail } from "./admin";
export { ASK_RUN_LINES_GRACE_MS, ASK_RUN_SILENCE_MS, ASK_RUN_TTL_MS } from "./ask-records";
export type {
  KernelOAuth,
  OAuthClientRecord,
  OAuthDecision,
  OAuthGrantError,
  OAuthRequestInput,
  OAuthTokenLifetimes,
  OAuthTokenPair,
} from "./oauth";
export type { AuditRetention, AuditSweep, ExpiredSweep, KernelHousekeeping } from "./retention";
export { auditMonth } from "./audit-partitions";
export type { AuditExportQuery } from "./audit-export";
export { commentAnchorProblem, commentReplyProblem } from "./comments";
export { searchText, searchWords } from "./search-words";
export { StaleSearchCursor } from "./search";
/** How many recently written blocks block search keeps apart before it folds them into FTS5 (decision 0045). */
export { FOLD_AT } from "./search-recent";
export type { SearchHitRow, SearchPosition, WorkspaceSearchQuery } from "./search";
export { CREATED_PAGE_CHANGED } from "./command-appliers";
