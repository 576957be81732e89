/**
 * V8's profile of the `mnote-bridge mcp --stdio` child answering `page.get` of a small page (section 3's read), the
 * client here:
 *
 *   node --import tsx src/profile-stdio.ts [calls] [blocks] [rows]
 *
 * The child runs with `--cpu-prof`; its profile is read back and printed by self and by inclusive time, busy µs per
 * call. Sampled time is wall time of the child, so on a loaded machine compare paths of one run, not runs.
 */
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { BRIDGE_BIN, stdioEnv } from "./transports";
import { benchWorld, paragraphs } from "./world";
import { countProfile, printRanked, type Profile } from "./v8-profile";

const calls = Number(process.argv[2] ?? 2000);
const blocks = Number(process.argv[3] ?? 10);
const rows = Number(process.argv[4] ?? 30);
const dir = mkdtempSync(join(tmpdir(), "mnote-stdio-prof-"));
const world = await benchWorld("stdio-prof");
const page = await world.newPage(paragraphs(blocks));
// As `stdioClient` spawns it, with V8's profiler on (not allowed in NODE_OPTIONS, so on the command line).
const client = new Client({ name: "mnote-bench", version: "0.0.0" });
await client.connect(
  new StdioClientTransport({
    command: process.execPath,
    args: ["--cpu-prof", `--cpu-prof-dir=${dir}`, "--cpu-prof-interval=100", BRIDGE_BIN, "mcp", "--stdio"],
    env: stdioEnv(world.databaseUrl, world.token),
    stderr: "ignore",
  }),
);
const args = { workspaceId: world.ws, documentId: page };
const call = async () => {
  const out = await client.callTool({ name: "mnote_page_get", arguments: args });
  if (out.isError) throw new Error("profile: page.get failed");
};
for (let i = 0; i < 300; i++) await call();
const started = performance.now();
for (let i = 0; i < calls; i++) await call();
const ms = performance.now() - started;
await client.close();
await world.kernel.close();
await new Promise((resolve) => setTimeout(resolve, 500));
const file = readdirSync(dir).find((name) => name.endsWith(".cpuprofile"));
if (!file) throw new Error("the child wrote no profile");
const profile = JSON.parse(readFileSync(join(dir, file), "utf8")) as Profile;

const { self, inclusive, busy, sampleUs } = countProfile(profile);
// The whole child's life is profiled (start-up, warm-up): per call is over every call it answered.
const answered = calls + 300;
const us = (count: number) => ((count * sampleUs) / answered).toFixed(0).padStart(6);
console.log(
  `stdio page.get of ${blocks} blocks: ${calls} calls, ${((ms * 1000) / calls).toFixed(0)} µs each at the client; ` +
    `the child busy ${us(busy).trim()} µs per call (start-up included)`,
);
const show = (counts: Map<string, number>) => printRanked(counts, { us, busy, rows });
console.log("--- self");
show(self);
console.log("--- inclusive");
show(inclusive);
