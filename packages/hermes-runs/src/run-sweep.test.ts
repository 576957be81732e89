import { describe, expect, it } from "vitest";
import { scheduleRunSweep } from "./run-sweep";

describe("scheduleRunSweep", () => {
  it("sweeps at once at start-up, reports what went by counts and a failure by itself, and stops", async () => {
    const removed: { lines: number; runs: number }[] = [];
    let sweeps = 0;
    const schedule = scheduleRunSweep({
      sweep: () => Promise.resolve({ lines: ++sweeps, runs: 0 }),
      // Far away: only the start-up sweep runs in this test (no waiting on the wall clock).
      everyMs: 3_600_000,
      swept: (counts) => removed.push(counts),
    });
    await schedule.first;
    schedule.stop();
    expect(sweeps).toBe(1);
    expect(removed).toEqual([{ lines: 1, runs: 0 }]);

    const failures: unknown[] = [];
    const failing = scheduleRunSweep({
      sweep: () => Promise.reject(new Error("database down")),
      everyMs: 3_600_000,
      failed: (error) => failures.push(error),
    });
    await failing.first;
    failing.stop();
    expect(failures).toHaveLength(1);
  });

  it("says nothing when a sweep removed nothing", async () => {
    const removed: unknown[] = [];
    const schedule = scheduleRunSweep({
      sweep: () => Promise.resolve({ lines: 0, runs: 0 }),
      everyMs: 3_600_000,
      swept: (counts) => removed.push(counts),
    });
    await schedule.first;
    schedule.stop();
    expect(removed).toEqual([]);
  });
});
