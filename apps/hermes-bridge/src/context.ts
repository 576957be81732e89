import type { SqlKernel } from "@mnote/kernel";
import type { BridgeSettings } from "./config";
import type { BridgeLogger } from "./logging";
import type { AuthFailureLimiter, RateLimiter } from "@mnote/process";

/** What every request handler of the HTTP server shares. */
export interface BridgeContext {
  kernel: SqlKernel;
  logger: BridgeLogger;
  settings: BridgeSettings;
  limiter: RateLimiter | null;
  /** Failed authentication per client address (`clientAddress`); null: not limited. */
  authFailures: AuthFailureLimiter | null;
}
