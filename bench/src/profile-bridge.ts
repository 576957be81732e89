/**
 * V8's sampling profile of the servers alone (the bridge and the baseline in a child process, the clients here):
 *
 *   node --import tsx src/profile-bridge.ts [bare|http|mcpRaw|mcpRawHermes|mcpRaw2026|mcpSdk] [calls] [rows] [uncached]
 *
 * Prints the child's busy µs per call, then functions by self and by inclusive time. Sampled time is wall time of
 * the child, so on a loaded machine compare paths of one run, not runs.
 */
import { READ_CACHE_OFF } from "./bridge";
import { ask, PATHS, type SplitPath, startSplit } from "./cpu-split";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples?: number[];
  startTime: number;
  endTime: number;
}

const path = (process.argv[2] ?? "mcpRaw") as SplitPath;
if (!PATHS.includes(path)) throw new Error(`path: one of ${PATHS.join(", ")}`);
const calls = Number(process.argv[3] ?? 1000);
const rows = Number(process.argv[4] ?? 30);
const REPO_ROOT = new URL("../../", import.meta.url).href;

// `uncached`: the bridge with its read cache off (every call a first read of its page state).
const split = await startSplit(1000, process.argv[5] === "uncached" ? READ_CACHE_OFF : {});
for (let i = 0; i < 300; i++) await split.calls[path]();
await ask(split.proc, "profile-start");
for (let i = 0; i < calls; i++) await split.calls[path]();
const { profile } = await ask<{ profile: Profile }>(split.proc, "profile-stop");
await split.close();

const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const parent = new Map<number, number>();
for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
const hits = new Map<number, number>();
for (const id of profile.samples ?? []) hits.set(id, (hits.get(id) ?? 0) + 1);
const samples = profile.samples?.length ?? 0;
const sampleUs = (profile.endTime - profile.startTime) / Math.max(1, samples);
const name = (node: ProfileNode) =>
  `${node.callFrame.functionName || "(anon)"} ${node.callFrame.url
    .replace(/.*node_modules\/(\.pnpm\/[^/]+\/node_modules\/)?/, "")
    .replace(REPO_ROOT, "")}:${node.callFrame.lineNumber}`;
const self = new Map<string, number>();
const inclusive = new Map<string, number>();
for (const [id, count] of hits) {
  const key = name(byId.get(id)!);
  self.set(key, (self.get(key) ?? 0) + count);
  const seen = new Set<string>();
  for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
    const frame = name(byId.get(at)!);
    if (seen.has(frame)) continue;
    seen.add(frame);
    inclusive.set(frame, (inclusive.get(frame) ?? 0) + count);
  }
}
const busy = samples - (self.get("(idle) :-1") ?? 0);
const us = (count: number) => ((count * sampleUs) / calls).toFixed(0).padStart(6);
console.log(`${path}: ${calls} calls, the servers' process busy ${us(busy).trim()} µs per call`);
const show = (counts: Map<string, number>) => {
  const ranked = [...counts].filter(([key]) => key !== "(idle) :-1" && key !== "(root) :-1");
  for (const [key, count] of ranked.sort((a, b) => b[1] - a[1]).slice(0, rows))
    console.log(`${us(count)} µs ${((count / Math.max(1, busy)) * 100).toFixed(1).padStart(5)}%  ${key}`);
};
console.log("--- self");
show(self);
console.log("--- inclusive");
show(inclusive);
