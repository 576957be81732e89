export { appRouter, createCaller, type AppRouter } from "./root";
export { callTool } from "./call-tool";
export { resolveToken, signedInPerson } from "./caller-token";
export {
  bearerSecret,
  createToolsContext,
  DEFAULT_SETTINGS,
  doorRefusal,
  type Door,
  toolsSettingsFromEnv,
  type ToolsContext,
  type ToolsSettings,
} from "./context";
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
export type { PanelToolName } from "./procedures/panel/revert-tool";
export type { Who } from "./procedures/panel/people";
export type { ProposalListItem, Proposal, ProposalState } from "./procedures/panel/proposals";
export type { AuditRow, DecisionOnProposal } from "./procedures/panel/audit-list";
export type { PageListItem } from "./procedures/panel/pages-list";
export type { AgentTokenItem } from "./procedures/panel/agents";
