import { createHash, timingSafeEqual } from "node:crypto";
import type { ToolErrorCode } from "@mnote/contract";
import type { SqlKernel, PageChange } from "@mnote/kernel";
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";
import type { ConfigReader } from "./config";
import type { RateDecision } from "./limiters";
import { retryAfterSeconds } from "./retry-after";

/**
 * The process's Prometheus metrics (issue 20), with `prom-client`. One registry per process (the bridge, the
 * panel), kept on `globalThis` so Next's module reloads in development do not register the metrics twice.
 * Labels are bounded sets only — a tool's name (the contract's, else `unknown`), the door, an outcome (`ok` or a
 * contract error code), a run's outcome — never an id, a token or page text.
 */
export interface MnoteMetrics {
  registry: Registry;
  toolCalls: Counter<"tool" | "door" | "outcome">;
  toolCallSeconds: Histogram<"tool" | "door">;
  liveStreams: Gauge;
  changeFeedLagSeconds: Histogram;
  hermesRuns: Counter<"outcome">;
}

/** Doors as the metrics name them: the bridge's transports (HTTP tools, MCP over HTTP, MCP over stdio), the panel. */
export type MetricsDoor = "http" | "mcp-http" | "mcp-stdio" | "panel";

const shared = globalThis as { __mnoteMetrics?: MnoteMetrics; __mnoteMetricsKernels?: WeakSet<object> };

/** The process's metrics, created on first use. */
export function mnoteMetrics(): MnoteMetrics {
  if (shared.__mnoteMetrics) return shared.__mnoteMetrics;
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: "mnote_process_" });
  const metrics: MnoteMetrics = {
    registry,
    toolCalls: new Counter({
      name: "mnote_tool_calls_total",
      help: "Tool calls answered, by tool, door and outcome (ok, or the contract's error code).",
      labelNames: ["tool", "door", "outcome"] as const,
      registers: [registry],
    }),
    toolCallSeconds: new Histogram({
      name: "mnote_tool_call_duration_seconds",
      help: "Time from a tool call's arrival to its answer, by tool and door.",
      labelNames: ["tool", "door"] as const,
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers: [registry],
    }),
    liveStreams: new Gauge({
      name: "mnote_live_streams_open",
      help: "Live-update streams (panel.page.changes) open in this process.",
      registers: [registry],
    }),
    changeFeedLagSeconds: new Histogram({
      name: "mnote_change_feed_lag_seconds",
      help: "Time from a change's announcement to its arrival at this process's change feed.",
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    }),
    hermesRuns: new Counter({
      name: "mnote_hermes_runs_total",
      help: "Ask Hermes runs ended, by outcome (completed, failed, cancelled, lost).",
      labelNames: ["outcome"] as const,
      registers: [registry],
    }),
  };
  shared.__mnoteMetrics = metrics;
  return metrics;
}

/** A tool name as a label: one of `known`, else `unknown` (a made-up name must not grow the label set). */
export function toolLabel(name: string, known: ReadonlySet<string>): string {
  return known.has(name) ? name : "unknown";
}

/** Count one answered tool call. `outcome`: `ok`, or the contract's error code. */
export function recordToolCall(tool: string, door: MetricsDoor, outcome: string, seconds: number) {
  const metrics = mnoteMetrics();
  metrics.toolCalls.inc({ tool, door, outcome });
  metrics.toolCallSeconds.observe({ tool, door }, seconds);
}

/**
 * The metrics that read the database when scraped (held proposals pending, the pool) and the change feed's lag,
 * for `kernel`. Once per kernel; the pool metrics only for a pooled database (PostgreSQL).
 */
export function observeKernel(kernel: SqlKernel & { changes?: { subscribe(l: (c: PageChange) => void): unknown } }) {
  const metrics = mnoteMetrics();
  shared.__mnoteMetricsKernels ??= new WeakSet();
  if (shared.__mnoteMetricsKernels.has(kernel)) return;
  shared.__mnoteMetricsKernels.add(kernel);
  const { registry } = metrics;
  for (const name of [
    "mnote_proposals_pending",
    "mnote_db_pool_connections",
    "mnote_db_pool_in_use",
    "mnote_db_pool_waiting",
    "mnote_db_errors_total",
  ]) {
    // A new kernel in this process (tests, a reopened database) replaces the one observed before.
    registry.removeSingleMetric(name);
  }
  new Gauge({
    name: "mnote_proposals_pending",
    help: "Proposals (dry runs and held agent writes) waiting for a person, in every workspace.",
    registers: [registry],
    async collect() {
      this.set(await kernel.countPendingProposals().catch(() => Number.NaN));
    },
  });
  const pool = () => kernel.poolStats();
  new Gauge({
    name: "mnote_db_pool_connections",
    help: "Database connections open in this process's pool (0 for an in-process database).",
    registers: [registry],
    collect() {
      this.set(pool()?.total ?? 0);
    },
  });
  new Gauge({
    name: "mnote_db_pool_in_use",
    help: "Database connections lent out right now.",
    registers: [registry],
    collect() {
      const stats = pool();
      this.set(stats ? stats.total - stats.idle : 0);
    },
  });
  new Gauge({
    name: "mnote_db_pool_waiting",
    help: "Callers waiting for a database connection.",
    registers: [registry],
    collect() {
      this.set(pool()?.waiting ?? 0);
    },
  });
  let seenErrors = 0;
  new Counter({
    name: "mnote_db_errors_total",
    help: "Failed database statements and connection errors in this process.",
    registers: [registry],
    collect() {
      const errors = pool()?.errors ?? 0;
      if (errors > seenErrors) this.inc(errors - seenErrors);
      seenErrors = errors;
    },
  });
  kernel.changes?.subscribe((change) => {
    if (change.announcedAt !== undefined && Number.isFinite(change.announcedAt)) {
      metrics.changeFeedLagSeconds.observe(Math.max(0, Date.now() - change.announcedAt) / 1000);
    }
  });
}

/**
 * The failed-authentication budget a door's metrics endpoint spends a wrong bearer from (the bridge: the per-address
 * `AuthFailureLimiter` its tool and MCP doors use; the panel: its failed-authentication bucket). Asked only of a
 * failing attempt, so the right bearer is never refused.
 */
export type MetricsFailureBudget = () => RateDecision | Promise<RateDecision>;

/** A fixed-length digest of a bearer: compared with timingSafeEqual, so neither length nor content leaks by timing. */
const digest = (value: string) => createHash("sha256").update(value, "utf8").digest();

/**
 * `GET /metrics` (bridge) and `GET /api/metrics` (panel): the text exposition, only for
 * `Authorization: Bearer <token>` with the configured token; 404 while none is configured (the route does not
 * exist for a scraper that was not given one), 401 for a wrong or missing bearer, 429 once the door's
 * failed-authentication budget is spent (issue 31, finding 10: guesses were unlimited).
 */
export async function metricsAnswer(
  configured: string | null,
  authorization: string | null | undefined,
  failureBudget: MetricsFailureBudget | null = null,
): Promise<{ status: number; contentType: string; body: string; headers: Record<string, string> }> {
  // Refused in the doors' one shape (`{ error: { code, message } }`), whichever door serves the metrics.
  const refusal = (status: number, code: ToolErrorCode, message: string, headers: Record<string, string> = {}) => ({
    status,
    contentType: "application/json; charset=utf-8",
    body: JSON.stringify({ error: { code, message } }),
    headers,
  });
  if (!configured) return refusal(404, "mnote_tool_not_found", "no metrics here: MNOTE_METRICS_TOKEN is not set");
  const presented = /^Bearer\s+(\S+)$/i.exec(authorization ?? "")?.[1] ?? "";
  // Both sides hashed to 32 bytes first: no early return on a length difference, one constant-time compare.
  if (!timingSafeEqual(digest(presented), digest(configured))) {
    const decision = failureBudget ? await failureBudget() : ({ allowed: true } as const);
    if (!decision.allowed)
      return refusal(429, "mnote_tool_rate_limited", "too many failed authentications; retry later", {
        "retry-after": retryAfterSeconds(decision.retryAfterMs),
      });
    return refusal(401, "mnote_tool_unauthenticated", "a valid metrics bearer token is required", {
      "www-authenticate": 'Bearer realm="mnote-metrics"',
    });
  }
  const { registry } = mnoteMetrics();
  return { status: 200, contentType: registry.contentType, body: await registry.metrics(), headers: {} };
}

/** Shortest metrics token accepted: it guards the operator's view of the whole process. */
export const METRICS_TOKEN_MIN_LENGTH = 16;

/**
 * MNOTE_METRICS_TOKEN, read with the rest of a process's configuration: unset or empty, no metrics endpoint (404);
 * else at least METRICS_TOKEN_MIN_LENGTH characters, none of them white space.
 */
export function metricsTokenFromEnv(config: ConfigReader): string | null {
  const value = config.raw("MNOTE_METRICS_TOKEN")?.trim();
  if (!value) return null;
  if (value.length < METRICS_TOKEN_MIN_LENGTH || /\s/.test(value)) {
    config.problem(
      `MNOTE_METRICS_TOKEN must be at least ${METRICS_TOKEN_MIN_LENGTH} characters without spaces (it is ${value.length} long)`,
    );
    return null;
  }
  return value;
}
