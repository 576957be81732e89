import { readdirSync } from "node:fs";
import { concurrent, fmtBytes, table } from "./stats";
import { httpPageGet, mcpHttpClient, startBenchBridge } from "./bridge";
import { benchWorld, paragraphs } from "./world";

export interface SoakOptions {
  /** Calls per door in all (the issue: 100,000). */
  calls: number;
  /** Calls per door after which the baseline is taken (the issue: 10,000). */
  baselineAfter: number;
  concurrency: number;
}

interface Snapshot {
  calls: number;
  rss: number;
  heapUsed: number;
  /** Memory outside the V8 heap that V8 knows of (Buffers, ArrayBuffers): the part of RSS a GC can free. */
  external: number;
  fds: number;
}

const openFds = () => readdirSync("/proc/self/fd").length;

/** Memory after a forced GC (twice: the second collects what the first's finalizers freed). */
function snapshot(calls: number): Snapshot {
  globalThis.gc?.();
  globalThis.gc?.();
  const { rss, heapUsed, external } = process.memoryUsage();
  return { calls, rss, heapUsed, external, fds: openFds() };
}

/**
 * The soak line (issues 20 and 24): one bridge answers `options.calls` MCP Streamable HTTP calls (the SDK client)
 * and as many HTTP tool-endpoint calls, in alternating batches of 1,000, `page.get` of a 3-block page (every call
 * runs the full router and writes its audit record). RSS, V8 heap after a forced GC and open file descriptors are
 * taken after `baselineAfter` calls per door and at the end; the end must be within 10% of the baseline.
 */
export async function runSoak(options: SoakOptions) {
  const world = await benchWorld("soak");
  const page = await world.newPage(paragraphs(3));
  const bridge = await startBenchBridge(world);
  const authorization = `Bearer ${world.token}`;
  const mcp = await mcpHttpClient(bridge.url, authorization, {}, "mnote-bench-soak");
  const modelArguments = { workspaceId: world.ws, documentId: page };
  const doors = {
    mcp: async () => {
      const out = await mcp.callTool({ name: "mnote_page_get", arguments: modelArguments });
      if (out.isError || !(out.structuredContent as { ok: boolean }).ok) throw new Error("soak: mcp call failed");
    },
    http: () => httpPageGet(bridge.url, world, page, authorization),
  };
  const batch = 1000;
  const started = performance.now();
  let done = 0;
  let baseline: Snapshot | null = null;
  while (done < options.calls) {
    await concurrent(batch, options.concurrency, doors.mcp);
    await concurrent(batch, options.concurrency, doors.http);
    done += batch;
    if (done === options.baselineAfter) baseline = snapshot(done);
  }
  const end = snapshot(done);
  const seconds = (performance.now() - started) / 1000;
  await mcp.close();
  await bridge.close();
  await world.kernel.close();
  if (!baseline) throw new Error("soak: baselineAfter must be a multiple of 1,000 below calls");

  const growth = (field: "rss" | "heapUsed" | "external") => end[field] / baseline[field] - 1;
  const pass = growth("rss") <= 0.1 && growth("heapUsed") <= 0.1 && end.fds <= baseline.fds;
  const pct = (x: number) => `${x >= 0 ? "+" : ""}${(x * 100).toFixed(1)}%`;
  const markdown = table(
    ["after (calls per door)", "RSS", "V8 heap used", "external (Buffers)", "open file descriptors"],
    [
      [
        baseline.calls.toLocaleString("en-US"),
        fmtBytes(baseline.rss),
        fmtBytes(baseline.heapUsed),
        fmtBytes(baseline.external),
        String(baseline.fds),
      ],
      [
        end.calls.toLocaleString("en-US"),
        fmtBytes(end.rss),
        fmtBytes(end.heapUsed),
        fmtBytes(end.external),
        String(end.fds),
      ],
      ["growth", pct(growth("rss")), pct(growth("heapUsed")), pct(growth("external")), String(end.fds - baseline.fds)],
    ],
  );
  return {
    markdown,
    pass,
    seconds,
    rssGrowth: growth("rss"),
    heapGrowth: growth("heapUsed"),
    fdGrowth: end.fds - baseline.fds,
  };
}
