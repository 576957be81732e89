import { HermesClient } from "./client";
import { checkReadiness, type HermesReadiness, ReadinessCache } from "./readiness";

/** Where the panel's Hermes is (MNOTE_HERMES_URL, MNOTE_HERMES_API_KEY, MNOTE_HERMES_ALLOWED_TOOLSETS). */
export interface HermesConnection {
  /** Without a trailing slash, e.g. http://127.0.0.1:8642 */
  url: string;
  /** Hermes's API_SERVER_KEY: the panel's server holds it, the browser never sees it. */
  apiKey: string;
  /** The only toolsets Hermes may offer a run asked from the panel (decision 0021). */
  allowedToolsets: readonly string[];
}

/** What the panel says when Hermes is not configured. */
export const HERMES_NOT_CONFIGURED =
  "Hermes is not connected to this panel: set MNOTE_HERMES_URL and MNOTE_HERMES_API_KEY (README: Connecting Hermes to the panel) and restart it.";

/** What the panel says when this Hermes cannot take words into a live run. */
export const STEER_UNSUPPORTED =
  "This Hermes cannot add to a running answer (Hermes 0.21 can); wait for the answer or stop it, then ask again.";

/**
 * The panel's Hermes as the router's Ask Hermes procedures use it (`panel.hermes.*`, decision 0043): the client
 * holding the key, and whether Hermes may be asked now. One per server process, so every request shares one
 * readiness check at a time (`ReadinessCache`); the bridge and the CLI have none, and the procedures refuse there.
 */
export class PanelHermes {
  /** For runs: no timeout on the event stream (it lasts as long as the run). */
  readonly client: HermesClient;
  /** For the readiness check: a Hermes that hangs must not hang the box. */
  private readonly probe: HermesClient;
  private readonly cache: ReadinessCache;

  constructor(
    readonly connection: HermesConnection,
    options: { now?: () => number; fetch?: typeof fetch } = {},
  ) {
    const { url, apiKey } = connection;
    this.client = new HermesClient({ url, apiKey, ...(options.fetch ? { fetch: options.fetch } : {}) });
    this.probe = new HermesClient({
      url,
      apiKey,
      timeoutMs: 5_000,
      ...(options.fetch ? { fetch: options.fetch } : {}),
    });
    this.cache = new ReadinessCache(options.now);
  }

  /** Hermes's readiness, checked at most every READINESS_TTL_MS (for the box) or as told (before a run). */
  readiness(maxAgeMs?: number): Promise<HermesReadiness> {
    return this.cache.get(
      this.connection.url,
      () => checkReadiness(this.probe, this.connection.allowedToolsets),
      maxAgeMs,
    );
  }
}
