/**
 * What every mnote process (the bridge, the CLI, the panel) does at its edge, before any call reaches the router:
 * read its configuration once at start, and limit its callers. Process plumbing, kept out of `@mnote/tools` so the
 * router package holds the tools and nothing a process merely needs to start.
 */
export { ConfigError, ConfigReader, databaseSettingsFromEnv, type DatabaseSettings, type Env } from "./config";
export {
  AuthFailureLimiter,
  type AuthFailureLimitSettings,
  DEFAULT_AUTH_FAILURE_LIMIT,
  DEFAULT_RATE_LIMIT,
  type RateDecision,
  RateLimiter,
  type RateLimitSettings,
  type SharedWindowCounter,
} from "./limiters";
export { consoleLogger, type Logger } from "./logger";
export { BodyTooLarge, readCappedBody } from "./body";
export { retryAfterSeconds } from "./retry-after";
export {
  DEFAULT_HOUSEKEEPING,
  housekeepingScheduler,
  type HousekeepingSettings,
  housekeepingSettingsFromEnv,
} from "./housekeeping";
export { type ScheduledJob, Scheduler, type SchedulerOptions } from "./scheduler";
export {
  type MetricsDoor,
  type MetricsFailureBudget,
  metricsAnswer,
  metricsTokenFromEnv,
  METRICS_TOKEN_MIN_LENGTH,
  mnoteMetrics,
  type MnoteMetrics,
  observeKernel,
  recordToolCall,
  toolLabel,
} from "./metrics";
