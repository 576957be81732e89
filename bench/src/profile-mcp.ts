import { Session } from "node:inspector/promises";
import { Client as ClientV2, StreamableHTTPClientTransport as HttpV2 } from "@modelcontextprotocol/client";
import { abortIsolatingFetch, httpPageGet, mcpHttpClient, startBenchBridge } from "./bridge";
import { benchWorld, paragraphs } from "./world";

/** The repository's root as it appears in a profile's script URLs, cut from the names printed. */
const REPO_ROOT = new URL("../../", import.meta.url).href;
const world = await benchWorld("prof");
const page = await world.newPage(paragraphs(1000));
const bridge = await startBenchBridge(world);
const client = await mcpHttpClient(bridge.url, `Bearer ${world.token}`, {}, "p");
const args = { workspaceId: world.ws, documentId: page };
/** mcp: the SDK 1.x client (2025 era); mcp2026: the 2.x client negotiating the 2026-07-28 revision; http: the tool endpoint. */
const which = process.argv[2] ?? "mcp";
const client2026 = new ClientV2({ name: "p", version: "0.0.0" }, { versionNegotiation: { mode: "auto" } });
await client2026.connect(
  new HttpV2(new URL(`${bridge.url}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${world.token}` } },
    fetch: abortIsolatingFetch,
  }),
);
const call = async () => {
  if (which === "mcp" || which === "mcp2026") {
    const out = await (which === "mcp" ? client : client2026).callTool({ name: "mnote_page_get", arguments: args });
    if (out.isError) throw new Error("profile: call failed");
    return;
  }
  await httpPageGet(bridge.url, world.envelope("mnote.page.get", page, {}), `Bearer ${world.token}`);
};
for (let i = 0; i < 200; i++) await call();
const s = new Session();
s.connect();
await s.post("Profiler.enable");
await s.post("Profiler.setSamplingInterval", { interval: 100 });
await s.post("Profiler.start");
const t = performance.now();
const N = Number(process.argv[3] ?? 1000);
for (let i = 0; i < N; i++) await call();
const ms = performance.now() - t;
const { profile } = await s.post("Profiler.stop");
type Node = {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount: number;
  children?: number[];
};
const nodes = profile.nodes as Node[];
const samples = profile.samples ?? [];
const dt = (profile.endTime - profile.startTime) / Math.max(1, samples.length);
const byFile = new Map<string, number>();
const byFn = new Map<string, number>();
const counts = new Map<number, number>();
for (const id of samples) counts.set(id, (counts.get(id) ?? 0) + 1);
for (const n of nodes) {
  const c = counts.get(n.id) ?? 0;
  if (!c) continue;
  const url = n.callFrame.url.replace(/.*node_modules\/\.pnpm\/[^/]+\/node_modules\//, "").replace(REPO_ROOT, "");
  const pkg = url.startsWith("node:")
    ? url
    : url
        .split("/")
        .slice(0, url.startsWith("@") ? 2 : 1)
        .join("/") || "(native/gc/idle)";
  byFile.set(pkg, (byFile.get(pkg) ?? 0) + c);
  const fn = `${n.callFrame.functionName || "(anon)"} ${url}:${n.callFrame.lineNumber}`;
  byFn.set(fn, (byFn.get(fn) ?? 0) + c);
}
const total = Math.max(1, samples.length);
console.log(`${which}: ${N} calls in ${ms.toFixed(0)} ms = ${(ms / N).toFixed(3)} ms/call; sample ${dt.toFixed(0)}µs`);
for (const [k, v] of [...byFile].sort((a, b) => b[1] - a[1]).slice(0, 20))
  console.log(`${((v / total) * 100).toFixed(1)}%\t${((v * dt) / N).toFixed(0)}µs/call\t${k}`);
console.log("--- functions");
for (const [k, v] of [...byFn].sort((a, b) => b[1] - a[1]).slice(0, Number(process.argv[4] ?? 40)))
  console.log(`${((v / total) * 100).toFixed(1)}%\t${k}`);
await client.close();
await client2026.close();
await bridge.close();
await world.kernel.close();
