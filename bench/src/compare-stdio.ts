/**
 * Two builds of the bridge side by side over stdio: the p50 latency and the child's CPU time of `page.get` on a
 * 10-block page (section 3's read), each spawned as an MCP client spawns it, calls interleaved one by one:
 *
 *   (cd apps/hermes-bridge && git stash && pnpm build && cp dist/mnote-bridge.mjs dist/base.mjs && git stash pop \
 *     && pnpm build)
 *   node --import tsx src/compare-stdio.ts base.mjs [warm-up calls] [calls per round] [rounds]
 *
 * The children's stderr is /dev/null (as section 3 spawns them): a change to how log lines are written is measured
 * here without a reader on the other end of a pipe. The base build must sit in apps/hermes-bridge/dist beside the
 * current one (its imports resolve from there). Prints
 * each side's median p50 and CPU µs per call, and the per-round p50 ratios (current / base: < 1 is faster).
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { median } from "./stats";
import { BRIDGE_BIN, stdioEnv } from "./transports";
import { benchWorld, paragraphs } from "./world";

const [baseFile, warmUp = "1000", perRound = "1000", roundsArg = "8"] = process.argv.slice(2);
if (!baseFile)
  throw new Error("usage: compare-stdio.ts <base build in apps/hermes-bridge/dist> [warm-up] [calls] [rounds]");
const dist = (file: string) => fileURLToPath(new URL(`../../apps/hermes-bridge/dist/${file}`, import.meta.url));

const world = await benchWorld("compare-stdio");
const page = await world.newPage(paragraphs(10));

/** The child's user + system CPU time in µs, from /proc (Linux). */
const cpuUs = (pid: number) => {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
};
async function spawn(args: string[]) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args,
    env: stdioEnv(world.databaseUrl, world.token),
    stderr: "ignore",
  });
  const client = new Client({ name: "mnote-compare-stdio", version: "0.0.0" });
  await client.connect(transport);
  return { client, pid: transport.pid! };
}
const sides = {
  base: await spawn([dist(baseFile), "mcp", "--stdio"]),
  current: await spawn([BRIDGE_BIN, "mcp", "--stdio"]),
};
type Side = keyof typeof sides;
const call = async (side: Side) => {
  const out = await sides[side].client.callTool({
    name: "mnote_page_get",
    arguments: { workspaceId: world.ws, documentId: page },
  });
  if (out.isError) throw new Error(`${side}: page.get failed`);
};

for (const side of Object.keys(sides) as Side[]) for (let i = 0; i < Number(warmUp); i++) await call(side);
const p50: Record<Side, number[]> = { base: [], current: [] };
const cpu: Record<Side, number[]> = { base: [], current: [] };
const calls = Number(perRound);
for (let round = 0; round < Number(roundsArg); round++) {
  const latencies: Record<Side, number[]> = { base: [], current: [] };
  const cpuBefore = { base: cpuUs(sides.base.pid), current: cpuUs(sides.current.pid) };
  for (let i = 0; i < calls; i++) {
    const order: Side[] = (round + i) % 2 ? ["base", "current"] : ["current", "base"];
    for (const side of order) {
      const started = performance.now();
      await call(side);
      latencies[side].push((performance.now() - started) * 1000);
    }
  }
  for (const side of Object.keys(sides) as Side[]) {
    p50[side].push(median(latencies[side]));
    cpu[side].push((cpuUs(sides[side].pid) - cpuBefore[side]) / calls);
  }
}
for (const side of Object.keys(sides) as Side[])
  console.log(`${side}: p50 ${median(p50[side]).toFixed(0)} µs, child CPU ${median(cpu[side]).toFixed(0)} µs per call`);
const ratios = p50.current.map((value, round) => value / p50.base[round]!);
console.log(
  `current / base p50, per round: ${ratios.map((r) => r.toFixed(3)).join(" ")}; median ${median(ratios).toFixed(3)}`,
);
for (const side of Object.values(sides)) await side.client.close();
await world.kernel.close();
