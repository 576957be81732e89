import { readdirSync } from "node:fs";
import { concurrent, fmtBytes, table } from "./stats";
import { fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import { httpPageGet, mcpHttpClient, remotePageGetEnvelope, startBenchBridge } from "./bridge";
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
  /** What V8 holds from the system for its heap (used or not): RSS can grow with it while `heapUsed` stays flat. */
  heapTotal: number;
  /** Memory outside the V8 heap that V8 knows of (Buffers, ArrayBuffers): the part of RSS a GC can free. */
  external: number;
  fds: number;
}

const openFds = () => readdirSync("/proc/self/fd").length;

/** Memory after a forced GC (twice: the second collects what the first's finalizers freed). */
function snapshot(calls: number): Snapshot {
  globalThis.gc?.();
  globalThis.gc?.();
  const { rss, heapUsed, heapTotal, external } = process.memoryUsage();
  return { calls, rss, heapUsed, heapTotal, external, fds: openFds() };
}

/** What the bridge's process tells the soak when it is ready. */
interface Ready {
  bridgeUrl: string;
  token: string;
  ws: string;
  owner: string;
  page: string;
}

/** The bridge's process: a world, a 3-block page and the bridge, nothing else; "snapshot" answers its memory. */
async function bridgeProcess() {
  const world = await benchWorld("soak");
  const page = await world.newPage(paragraphs(3));
  const bridge = await startBenchBridge(world);
  process.on("message", (message: { snapshot?: number } | "exit") => {
    if (message === "exit") {
      void bridge
        .close()
        .then(() => world.kernel.close())
        .then(() => process.exit(0));
    } else if (message.snapshot !== undefined) process.send!(snapshot(message.snapshot));
  });
  const ready: Ready = { bridgeUrl: bridge.url, token: world.token, ws: world.ws, owner: world.owner, page };
  process.send!(ready);
}

/**
 * The soak line (issues 20 and 24): one bridge answers `options.calls` MCP Streamable HTTP calls (the SDK client)
 * and as many HTTP tool-endpoint calls, in alternating batches of 1,000, `page.get` of a 3-block page (every call
 * runs the full router and writes its audit record). The bridge runs in a child process of its own, so its memory
 * is the bridge's and not the clients'. RSS, V8 heap after a forced GC and open file descriptors of both processes
 * are taken after `baselineAfter` calls per door and at the end; the bridge's must stay within 10% of the baseline.
 */
export async function runSoak(options: SoakOptions) {
  const child = fork(fileURLToPath(import.meta.url), ["soak-bridge"], {
    execArgv: ["--expose-gc", "--import", "tsx"],
    stdio: ["ignore", "ignore", "inherit", "ipc"],
  });
  const ready = await new Promise<Ready>((resolve, reject) => {
    child.once("message", (message) => resolve(message as Ready));
    child.once("error", reject);
  });
  const bridgeSnapshot = (calls: number) =>
    new Promise<Snapshot>((resolve) => {
      child.once("message", (message) => resolve(message as Snapshot));
      child.send({ snapshot: calls });
    });
  const authorization = `Bearer ${ready.token}`;
  const mcp = await mcpHttpClient(ready.bridgeUrl, authorization, {}, "mnote-bench-soak");
  const modelArguments = { workspaceId: ready.ws, documentId: ready.page };
  const doors = {
    mcp: async () => {
      const out = await mcp.callTool({ name: "mnote_page_get", arguments: modelArguments });
      if (out.isError || !(out.structuredContent as { ok: boolean }).ok) throw new Error("soak: mcp call failed");
    },
    http: () => httpPageGet(ready.bridgeUrl, remotePageGetEnvelope(ready), authorization),
  };
  const batch = 1000;
  const started = performance.now();
  let done = 0;
  let baseline: { bridge: Snapshot; clients: Snapshot } | null = null;
  while (done < options.calls) {
    await concurrent(batch, options.concurrency, doors.mcp);
    await concurrent(batch, options.concurrency, doors.http);
    done += batch;
    if (done === options.baselineAfter) baseline = { bridge: await bridgeSnapshot(done), clients: snapshot(done) };
  }
  const end = { bridge: await bridgeSnapshot(done), clients: snapshot(done) };
  const seconds = (performance.now() - started) / 1000;
  await mcp.close();
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.send("exit");
  await exited;
  if (!baseline) throw new Error("soak: baselineAfter must be a multiple of 1,000 below calls");

  const growth = (who: "bridge" | "clients", field: "rss" | "heapTotal" | "heapUsed" | "external") =>
    end[who][field] / baseline[who][field] - 1;
  const pass =
    growth("bridge", "rss") <= 0.1 && growth("bridge", "heapUsed") <= 0.1 && end.bridge.fds <= baseline.bridge.fds;
  const pct = (x: number) => `${x >= 0 ? "+" : ""}${(x * 100).toFixed(1)}%`;
  const row = (who: string, at: Snapshot) => [
    who,
    at.calls.toLocaleString("en-US"),
    fmtBytes(at.rss),
    fmtBytes(at.heapTotal),
    fmtBytes(at.heapUsed),
    fmtBytes(at.external),
    String(at.fds),
  ];
  const growthRow = (who: "bridge" | "clients") => [
    `${who === "bridge" ? "bridge" : "clients"}: growth`,
    "",
    pct(growth(who, "rss")),
    pct(growth(who, "heapTotal")),
    pct(growth(who, "heapUsed")),
    pct(growth(who, "external")),
    String(end[who].fds - baseline[who].fds),
  ];
  const markdown = table(
    ["process", "after (calls per door)", "RSS", "V8 heap total", "V8 heap used", "external (Buffers)", "open fds"],
    [
      row("bridge", baseline.bridge),
      row("bridge", end.bridge),
      growthRow("bridge"),
      row("clients", baseline.clients),
      row("clients", end.clients),
      growthRow("clients"),
    ],
  );
  return {
    markdown,
    pass,
    seconds,
    rssGrowth: growth("bridge", "rss"),
    heapGrowth: growth("bridge", "heapUsed"),
    fdGrowth: end.bridge.fds - baseline.bridge.fds,
  };
}

if (process.argv[2] === "soak-bridge") await bridgeProcess();
