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
import { countProfile, printRanked, type Profile } from "./v8-profile";

const path = (process.argv[2] ?? "mcpRaw") as SplitPath;
if (!PATHS.includes(path)) throw new Error(`path: one of ${PATHS.join(", ")}`);
const calls = Number(process.argv[3] ?? 1000);
const rows = Number(process.argv[4] ?? 30);

// `uncached`: the bridge with its read cache off (every call a first read of its page state).
const split = await startSplit(1000, process.argv[5] === "uncached" ? READ_CACHE_OFF : {});
for (let i = 0; i < 300; i++) await split.calls[path]();
await ask(split.proc, "profile-start");
for (let i = 0; i < calls; i++) await split.calls[path]();
const { profile } = await ask<{ profile: Profile }>(split.proc, "profile-stop");
await split.close();

const { self, inclusive, busy, sampleUs } = countProfile(profile);
const us = (count: number) => ((count * sampleUs) / calls).toFixed(0).padStart(6);
console.log(`${path}: ${calls} calls, the servers' process busy ${us(busy).trim()} µs per call`);
const show = (counts: Map<string, number>) => printRanked(counts, { us, busy, rows });
console.log("--- self");
show(self);
console.log("--- inclusive");
show(inclusive);
