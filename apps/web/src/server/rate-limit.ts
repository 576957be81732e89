import "server-only";
// The bridge's token bucket: one implementation of the rate limit for both doors. Imported by
// file, not through the bridge package, whose entry would bring its HTTP server and the MCP SDK
// into the panel. The panel sees it only through `PanelLimiter` (panel-api.ts).
import { DEFAULT_RATE_LIMIT, RateLimiter } from "../../../hermes-bridge/src/rate-limit";
import type { PanelLimiter } from "./panel-api";

const shared = globalThis as { __mnotePanelLimiter?: PanelLimiter };

/** One budget per token for the whole panel process, at the bridge's default rate. */
export function panelLimiter(): PanelLimiter {
  shared.__mnotePanelLimiter ??= new RateLimiter(DEFAULT_RATE_LIMIT);
  return shared.__mnotePanelLimiter;
}
