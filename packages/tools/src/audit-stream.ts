import { appendFile } from "node:fs/promises";
import type { SqlKernel } from "@mnote/kernel";
import { type HousekeepingSettings, housekeepingScheduler, type Logger, type Scheduler } from "@mnote/process";
import { createToolsContext } from "./context";
import { createOperatorCaller } from "./routers/operator";

/** Where the audit records are pushed (MNOTE_AUDIT_STREAM_URL, MNOTE_AUDIT_STREAM_TOKEN): a file or an HTTP endpoint. */
export interface AuditStreamTarget {
  /** `file:/var/log/mnote-audit.ndjson` or `https://siem.example.com/ingest`. */
  url: string;
  /** Sent as `Authorization: Bearer …` to an HTTP endpoint. */
  token?: string | null;
}

/**
 * Records younger than this are not streamed yet: on PostgreSQL ids are handed out before their transactions commit,
 * so a smaller id may become visible after a larger one; a minute is far beyond any transaction (statement timeout).
 */
const SETTLE_MS = 60_000;
const PAGE = 1000;
/** Pages one run delivers at most; the rest goes at the next run (the scheduler never overlaps a job with itself). */
const PAGES_PER_RUN = 20;

export type Deliver = (lines: string) => Promise<void>;

/** How one batch of NDJSON lines reaches the target; a failure throws, and the cursor stays. */
export function deliverTo(target: AuditStreamTarget, fetchImpl: typeof fetch = fetch): Deliver {
  if (target.url.startsWith("file:")) {
    const path = target.url.slice("file:".length);
    return (lines) => appendFile(path, lines, "utf8");
  }
  return async (lines) => {
    const response = await fetchImpl(target.url, {
      method: "POST",
      headers: {
        "content-type": "application/x-ndjson",
        ...(target.token ? { authorization: `Bearer ${target.token}` } : {}),
      },
      body: lines,
      signal: AbortSignal.timeout(10_000),
    });
    await response.body?.cancel();
    if (!response.ok) throw new Error(`the audit stream endpoint answered ${response.status}`);
  };
}

/**
 * One run of the stream: the records after the target's cursor (through the operator router, as the export reads
 * them), a page at a time, each page delivered and then the cursor moved past it. At least once: a delivery that
 * succeeded before a crash is sent again by the next run; receivers de-duplicate by `id`. It runs in the
 * housekeeping scheduler, never inside a tool call, so a slow or failing endpoint delays only the stream. With
 * several instances on one PostgreSQL database one pushes to a target at a time (an advisory lock per target); the
 * others answer `skipped: 1`, so two instances do not send the same page side by side.
 */
export function auditStreamJob(kernel: SqlKernel, target: AuditStreamTarget, deliver: Deliver = deliverTo(target)) {
  const caller = createOperatorCaller(createToolsContext({ kernel }));
  const run = async (now: Date) => {
    let cursor = await kernel.getStreamCursor(target.url);
    let streamed = 0;
    for (let page = 0; page < PAGES_PER_RUN; page++) {
      const { records } = await caller.audit.export({
        since: "1970-01-01T00:00:00.000Z",
        until: new Date(now.getTime() - SETTLE_MS).toISOString(),
        cursor: String(cursor),
        limit: PAGE,
      });
      if (records.length === 0) break;
      await deliver(records.map((record) => `${JSON.stringify(record)}\n`).join(""));
      cursor = records.at(-1)!.id;
      await kernel.setStreamCursor(target.url, cursor);
      streamed += records.length;
      if (records.length < PAGE) break;
    }
    return { streamed };
  };
  return async (now: Date) =>
    (await kernel.housekeeping.alone(`audit-stream ${target.url}`, () => run(now))) ?? { streamed: 0, skipped: 1 };
}

/**
 * The housekeeping every long-running process starts (the bridge's `serve`, the panel's server): the sweeps of
 * `@mnote/process` and, when an operator named one, the audit stream. Started here, stopped by the caller.
 */
export function startHousekeeping(kernel: SqlKernel, logger: Logger, settings: HousekeepingSettings): Scheduler {
  const scheduler = housekeepingScheduler(kernel, logger, settings);
  const stream = settings.stream;
  if (stream) scheduler.register("audit-stream", Math.min(settings.intervalMs, 60_000), auditStreamJob(kernel, stream));
  scheduler.start();
  return scheduler;
}
