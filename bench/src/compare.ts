/**
 * `pnpm --filter @mnote/bench compare -- <other checkout>`: this checkout's `page.save` against
 * another checkout's (a copy of the repository at another commit, installed), side by side with
 * the floor, in one process. How a change to the write path was judged: two separate `pnpm bench`
 * runs on a shared machine differ by more than most changes do; rounds interleaved in one
 * process do not.
 *
 *   cp -a . /tmp/mnote-base && git -C /tmp/mnote-base checkout <commit>
 *   pnpm --filter @mnote/bench compare -- /tmp/mnote-base [--rounds 21]
 */
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { openFloor, timeFloorWrites, timeRouterAppends } from "./floor";
import { fmtPct, median, roundOrder } from "./stats";
import { type BenchWorld, benchWorld } from "./world";

const { values, positionals } = parseArgs({
  args: process.argv.slice(2).filter((arg) => arg !== "--"), // pnpm passes the separator through
  options: { rounds: { type: "string", default: "21" } },
  allowPositionals: true,
});
if (positionals.length !== 1) throw new Error("usage: compare.ts <path to another installed checkout> [--rounds N]");
const other = resolve(positionals[0]!);
const rounds = Number(values.rounds);
const { benchWorld: otherWorld } = (await import(`${other}/bench/src/world.ts`)) as { benchWorld: typeof benchWorld };

const WRITES = 200;
const floor = await openFloor();
const worlds: Record<"this" | "other", BenchWorld> = {
  this: await benchWorld("compare-this"),
  other: await otherWorld("compare-other"),
};
/** Wall and CPU µs per write; the same loops as section 1 of `pnpm bench`. */
interface Cost {
  wall: number;
  cpu: number;
}
const costOf = (sample: { rate: number; cpuUs: number }): Cost => ({ wall: 1e6 / sample.rate, cpu: sample.cpuUs });
const floorRun = (count: number) => costOf(timeFloorWrites(floor, count));
const routerRun = async (world: BenchWorld, count: number) => costOf(await timeRouterAppends(world, count));

floorRun(500);
await routerRun(worlds.this, 500);
await routerRun(worlds.other, 500);
const samples: Array<Record<"floor" | "this" | "other", Cost>> = [];
for (let round = 0; round < rounds; round++) {
  const sample = {} as Record<"floor" | "this" | "other", Cost>;
  for (const variant of roundOrder(["floor", "this", "other"] as const, round)) {
    sample[variant] = variant === "floor" ? floorRun(WRITES) : await routerRun(worlds[variant], WRITES);
  }
  samples.push(sample);
}
const med = (pick: (s: (typeof samples)[number]) => number) => median(samples.map(pick));
console.log(
  `floor                 ${med((s) => s.floor.wall).toFixed(0)} µs/write (CPU ${med((s) => s.floor.cpu).toFixed(0)})`,
);
for (const [name, pick] of [
  ["this checkout", (s: (typeof samples)[number]) => s.this],
  [other, (s: (typeof samples)[number]) => s.other],
] as const) {
  console.log(
    `${name}\n                      ${med((s) => pick(s).wall).toFixed(0)} µs/write (CPU ${med((s) => pick(s).cpu).toFixed(0)}), ` +
      `${fmtPct(med((s) => s.floor.wall / pick(s).wall))} of the floor's rate`,
  );
}
console.log(
  `time per write, this / other: ${med((s) => s.this.wall / s.other.wall).toFixed(3)}; CPU time per write: ` +
    `${med((s) => s.this.cpu / s.other.cpu).toFixed(3)} (medians of ${rounds} per-round ratios)`,
);
process.exit(0);
