export { appRouter, createCaller, type AppRouter } from "./root";
export { callTool } from "./call-tool";
export { bearerSecret, createToolsContext, DEFAULT_SETTINGS, doorRefusal, type Door, toolsSettingsFromEnv, type ToolsContext, type ToolsSettings } from "./context";
export { ConfigError, ConfigReader, databaseSettingsFromEnv, type DatabaseSettings, type Env } from "./config";
export { payloadFingerprint, canonicalJson } from "./fingerprint";
export { canReadPage, canWritePage, canWriteArtifacts } from "./access";
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
