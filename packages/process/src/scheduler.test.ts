import { ManualClock } from "@mnote/kernel";
import { describe, expect, it } from "vitest";
import type { Logger } from "./logger";
import { Scheduler } from "./scheduler";

function recordingLogger() {
  const lines: Array<{ level: string; fields: Record<string, unknown>; message: string }> = [];
  const at = (level: string) => (fields: Record<string, unknown>, message: string) =>
    void lines.push({ level, fields, message });
  const logger: Logger = { error: at("error"), warn: at("warn"), info: at("info") };
  return { logger, lines };
}

describe("Scheduler", () => {
  it("runs each job at start and then only when its interval has passed on the clock", async () => {
    const clock = new ManualClock("2026-01-01T00:00:00Z");
    const runs: Array<[string, string]> = [];
    const scheduler = new Scheduler({ clock, logger: recordingLogger().logger })
      .register("fast", 1_000, async (now) => void runs.push(["fast", now.toISOString()]))
      .register("slow", 5_000, async (now) => void runs.push(["slow", now.toISOString()]));
    await scheduler.tick();
    expect(runs).toEqual([
      ["fast", "2026-01-01T00:00:00.000Z"],
      ["slow", "2026-01-01T00:00:00.000Z"],
    ]);
    clock.advance(999);
    await scheduler.tick();
    expect(runs).toHaveLength(2);
    clock.advance(1);
    await scheduler.tick();
    expect(runs.at(-1)).toEqual(["fast", "2026-01-01T00:00:01.000Z"]);
    clock.advance(4_000);
    await scheduler.tick();
    expect(runs.slice(3)).toEqual([
      ["fast", "2026-01-01T00:00:05.000Z"],
      ["slow", "2026-01-01T00:00:05.000Z"],
    ]);
    await scheduler.stop();
  });

  it("never runs a job twice at once, however often the timer wakes", async () => {
    const clock = new ManualClock();
    let release!: () => void;
    let starts = 0;
    const scheduler = new Scheduler({ clock, logger: recordingLogger().logger }).register("long", 10, () => {
      starts += 1;
      return new Promise<void>((resolve) => (release = resolve));
    });
    const first = scheduler.tick();
    clock.advance(1_000);
    await scheduler.tick();
    expect(starts).toBe(1);
    release();
    await first;
    const second = scheduler.tick();
    expect(starts).toBe(2);
    release();
    await second;
    await scheduler.stop();
  });

  it("logs a failed job without its message and keeps running the others and itself", async () => {
    const clock = new ManualClock();
    const { logger, lines } = recordingLogger();
    let good = 0;
    let bad = 0;
    const scheduler = new Scheduler({ clock, logger })
      .register("bad", 100, async () => {
        bad += 1;
        throw new TypeError("row text that must not reach the log");
      })
      .register("good", 100, async () => {
        good += 1;
        return { removed: 3, kept: 0 };
      });
    await scheduler.tick();
    clock.advance(100);
    await scheduler.tick();
    expect([bad, good]).toEqual([2, 2]);
    expect(lines.filter((l) => l.level === "warn")).toEqual([
      expect.objectContaining({ fields: { job: "bad", errorType: "TypeError" } }),
      expect.objectContaining({ fields: { job: "bad", errorType: "TypeError" } }),
    ]);
    expect(JSON.stringify(lines)).not.toContain("row text");
    expect(lines.filter((l) => l.level === "info")[0]!.fields).toEqual({ job: "good", removed: 3, kept: 0 });
    await scheduler.stop();
  });

  it("a quiet run logs nothing, and a stopped scheduler starts nothing", async () => {
    const clock = new ManualClock();
    const { logger, lines } = recordingLogger();
    let runs = 0;
    const scheduler = new Scheduler({ clock, logger }).register("quiet", 1, async () => {
      runs += 1;
      return { removed: 0 };
    });
    await scheduler.tick();
    expect(lines).toEqual([]);
    await scheduler.stop();
    clock.advance(10);
    await scheduler.tick();
    expect(runs).toBe(1);
  });

  it("refuses a second job of the same name and an interval that is not positive", () => {
    const scheduler = new Scheduler({ clock: new ManualClock(), logger: recordingLogger().logger });
    scheduler.register("a", 1, async () => undefined);
    expect(() => scheduler.register("a", 1, async () => undefined)).toThrow(/already registered/);
    expect(() => scheduler.register("b", 0, async () => undefined)).toThrow(/interval/);
  });
});
