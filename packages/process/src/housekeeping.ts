import type { SqlKernel } from "@mnote/kernel";
import type { ConfigReader } from "./config";
import type { Logger } from "./logger";
import { Scheduler } from "./scheduler";

/** What the housekeeping of a process keeps and how often it looks (docs/operations.md, "Retention"). */
export interface HousekeepingSettings {
  /** How often each sweep runs (clock time); MNOTE_HOUSEKEEPING_INTERVAL_SECONDS, default 10 minutes. */
  intervalMs: number;
}

export const DEFAULT_HOUSEKEEPING: HousekeepingSettings = { intervalMs: 10 * 60_000 };

/** MNOTE_HOUSEKEEPING_INTERVAL_SECONDS (10 to 86,400); problems go on `config`. */
export function housekeepingSettingsFromEnv(config: ConfigReader): HousekeepingSettings {
  const seconds = config.number("MNOTE_HOUSEKEEPING_INTERVAL_SECONDS", { min: 10, max: 86_400, unit: "seconds" });
  return { intervalMs: seconds === undefined ? DEFAULT_HOUSEKEEPING.intervalMs : seconds * 1000 };
}

/**
 * The scheduler every long-running process (the bridge's `serve`, the panel's server) starts beside its kernel,
 * with mnote's sweeps registered on the kernel's clock. A lane that adds a sweep registers it here, so every
 * process runs it. The caller starts it (`start()`) and stops it before closing the kernel (`await stop()`).
 */
export function housekeepingScheduler(
  kernel: SqlKernel,
  logger: Logger,
  settings: HousekeepingSettings = DEFAULT_HOUSEKEEPING,
): Scheduler {
  const scheduler = new Scheduler({ clock: kernel.clock, logger });
  // Idempotency records past their retention window only ever block nothing, nor do expired OAuth leftovers.
  scheduler.register("expired-records", settings.intervalMs, async (now) => {
    const idempotency = await kernel.purgeExpiredIdempotency(now.toISOString());
    const oauth = await kernel.oauth.purgeExpired(now);
    return { idempotency, ...oauth };
  });
  return scheduler;
}
