export {
  decodeFlow,
  encodeFlow,
  isLoopbackHttp,
  OidcRelyingParty,
  type OidcSettings,
  type SignInFlow,
  SignInRefused,
  type SignInRefusalReason,
  type VerifiedIdentity,
} from "./oidc";
export {
  closePanelSession,
  openPanelSession,
  PANEL_SESSION_LABELS,
  PANEL_SESSION_TTL_SECONDS,
  personForIdentity,
  type PersonOutcome,
  type PersonRefusal,
} from "./people";
export { OIDC_CALLBACK_PATH, type OidcConfig, oidcSettingsFromEnv } from "./config";
export { safeReturnPath } from "./return-path";
