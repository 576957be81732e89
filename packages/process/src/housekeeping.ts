import type { SqlKernel } from "@mnote/kernel";
import type { ConfigReader } from "./config";
import type { Logger } from "./logger";
import { Scheduler } from "./scheduler";

/** What the housekeeping of a process keeps and how often it looks (docs/operations.md, "Retention"). */
export interface HousekeepingSettings {
  /** How often each sweep runs (clock time); MNOTE_HOUSEKEEPING_INTERVAL_SECONDS, default 10 minutes. */
  intervalMs: number;
  /** MNOTE_AUDIT_RETENTION_DAYS (default 365): audit records older than this go, unless still needed (retention.ts). */
  auditDays: number;
  /** MNOTE_AUDIT_READ_RETENTION_DAYS (default: the audit retention, never more): reads may go sooner. */
  readDays: number;
  /** MNOTE_HOUSEKEEPING_BATCH: rows a statement of a sweep removes at most; unset, the kernel's (250 SQLite, 1000 PostgreSQL). */
  batchSize?: number;
  /**
   * MNOTE_AUDIT_STREAM_URL (`file:PATH` or an http(s) URL) and MNOTE_AUDIT_STREAM_TOKEN: where the audit records are
   * pushed as they come (`@mnote/tools` audit-stream.ts); null: nowhere.
   */
  stream: { url: string; token: string | null } | null;
}

export const DEFAULT_HOUSEKEEPING: HousekeepingSettings = {
  intervalMs: 10 * 60_000,
  auditDays: 365,
  readDays: 365,
  stream: null,
};

/** The MNOTE_HOUSEKEEPING_* and MNOTE_AUDIT_*_RETENTION_DAYS variables; problems go on `config`. */
export function housekeepingSettingsFromEnv(config: ConfigReader): HousekeepingSettings {
  const seconds = config.number("MNOTE_HOUSEKEEPING_INTERVAL_SECONDS", { min: 10, max: 86_400, unit: "seconds" });
  const days = { min: 1, max: 36_500, integer: true, unit: "days" };
  const auditDays = config.number("MNOTE_AUDIT_RETENTION_DAYS", days) ?? DEFAULT_HOUSEKEEPING.auditDays;
  const readDays = config.number("MNOTE_AUDIT_READ_RETENTION_DAYS", days) ?? auditDays;
  if (readDays > auditDays)
    config.problem(
      `MNOTE_AUDIT_READ_RETENTION_DAYS (${readDays}) may not be longer than MNOTE_AUDIT_RETENTION_DAYS (${auditDays})`,
    );
  const batchSize = config.number("MNOTE_HOUSEKEEPING_BATCH", { min: 100, max: 100_000, integer: true, unit: "rows" });
  const streamUrl = config.raw("MNOTE_AUDIT_STREAM_URL");
  if (streamUrl !== undefined && !/^(file:.+|https?:\/\/[^\s]+)$/.test(streamUrl))
    config.problem(
      `MNOTE_AUDIT_STREAM_URL must be file:PATH or an http(s) URL, got ${JSON.stringify(streamUrl.slice(0, 40))}`,
    );
  const stream =
    streamUrl === undefined ? null : { url: streamUrl, token: config.raw("MNOTE_AUDIT_STREAM_TOKEN") ?? null };
  return {
    stream,
    intervalMs: seconds === undefined ? DEFAULT_HOUSEKEEPING.intervalMs : seconds * 1000,
    auditDays,
    readDays: Math.min(readDays, auditDays),
    ...(batchSize === undefined ? {} : { batchSize }),
  };
}

/**
 * The scheduler every long-running process (the bridge's `serve`, the panel's server) starts beside its kernel,
 * with mnote's sweeps registered on the kernel's clock. A lane that adds a sweep registers it here, so every
 * process runs it. The caller starts it (`start()`) and stops it before closing the kernel (`await stop()`).
 * Each sweep takes the kernel's lock itself (PostgreSQL: one instance at a time; the others report `skipped`).
 */
export function housekeepingScheduler(
  kernel: SqlKernel,
  logger: Logger,
  settings: HousekeepingSettings = DEFAULT_HOUSEKEEPING,
): Scheduler {
  const scheduler = new Scheduler({ clock: kernel.clock, logger });
  scheduler.register("audit-retention", settings.intervalMs, (now) =>
    kernel.housekeeping.sweepAudit(now, {
      days: settings.auditDays,
      readDays: settings.readDays,
      batchSize: settings.batchSize,
    }),
  );
  // Idempotency records past their TTL, ended tokens (kept as long as the trail may name them) and OAuth leftovers.
  scheduler.register("expired-records", settings.intervalMs, (now) =>
    kernel.housekeeping.sweepExpired(now, { tokenGraceDays: settings.auditDays, batchSize: settings.batchSize }),
  );
  return scheduler;
}
