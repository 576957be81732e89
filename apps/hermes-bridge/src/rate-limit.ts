// The limiters live in @mnote/tools so that every door (bridge, panel) uses the same ones.
export {
  AuthFailureLimiter,
  type AuthFailureLimitSettings,
  DEFAULT_AUTH_FAILURE_LIMIT,
  DEFAULT_RATE_LIMIT,
  type RateDecision,
  RateLimiter,
  type RateLimitSettings,
  type SharedWindowCounter,
} from "@mnote/tools";
