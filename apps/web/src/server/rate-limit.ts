import "server-only";
// The bridge's token bucket (@mnote/process): one implementation of the rate limit for both doors.
// The panel sees it only through `PanelLimiter` (panel-api.ts).
import { DEFAULT_RATE_LIMIT, RateLimiter } from "@mnote/process";
import type { PanelLimiter } from "./panel-api";

const shared = globalThis as { __mnotePanelLimiter?: PanelLimiter };

/** One budget per token for the whole panel process, at the bridge's default rate. */
export function panelLimiter(): PanelLimiter {
  shared.__mnotePanelLimiter ??= new RateLimiter(DEFAULT_RATE_LIMIT);
  return shared.__mnotePanelLimiter;
}
