export { appRouter, createCaller, type AppRouter } from "./root";
export { callTool } from "./call-tool";
export { blocksJson } from "./read-cache";
export { AppError, isAppError, REFUSAL_REASONS, type RefusalReason, TRPC_CODE_OF } from "./app-error";
export { checkPersonSignIn, type PersonSignInProblem, resolveToken, signedInPerson } from "./resolve-token";
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
export { payloadFingerprint, canonicalJson } from "./fingerprint";
export { canReadPage, canWritePage, canWriteArtifacts } from "./access";
export type { PanelToolName } from "./panel/panel-tools";
export type { ReadThread } from "./comment-threads";
export type { Who } from "./panel/people";
export type { ProposalListItem, Proposal, ProposalState } from "./panel/proposals";
export type { AuditRow, DecisionOnProposal } from "./procedures/panel/audit-list";
export type { PageListItem } from "./procedures/panel/pages-list";
export type { AgentTokenItem } from "./panel/agents";
export { createOAuthCaller, type OAuthRouter } from "./routers/oauth";
export type { ConsentClient } from "./procedures/oauth/clients";
export type { ConsentRefusal } from "./procedures/oauth/oauth-consent-decide";
export { createOperatorCaller, type OperatorRouter } from "./routers/operator";
export type { ExportedAuditRecord } from "./procedures/operator/audit-export";
export { auditStreamJob, type AuditStreamTarget, deliverTo, startHousekeeping } from "./audit-stream";
