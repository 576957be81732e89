/**
 * The run sweep's schedule (issue 38): a run's lines leave the database once nobody can follow the run, by a
 * sweep that runs at start-up and then every `everyMs` in each panel process, on its own — not when another
 * run begins. A housekeeping scheduler can call the same `sweep` instead (it is a plain function).
 */
export interface RunSweepOptions {
  /** One sweep: the kernel's `ask.sweepRuns` with the panel's grace. */
  sweep: () => Promise<{ lines: number; runs: number }>;
  everyMs?: number;
  /** What one sweep removed (counts only: nothing a run said). */
  swept?: (removed: { lines: number; runs: number }) => void;
  failed?: (error: unknown) => void;
}

export interface RunSweepSchedule {
  /** The start-up sweep, done (or failed, and reported). */
  first: Promise<void>;
  stop(): void;
}

/** How often the panel sweeps unless told otherwise: a run's text outlives its grace by at most this. */
export const RUN_SWEEP_EVERY_MS = 15_000;

export function scheduleRunSweep(options: RunSweepOptions): RunSweepSchedule {
  let running: Promise<void> | null = null;
  const once = () =>
    (running ??= options
      .sweep()
      .then(
        (removed) => {
          if (removed.lines + removed.runs > 0) options.swept?.(removed);
        },
        (error: unknown) => options.failed?.(error),
      )
      .finally(() => (running = null)));
  const first = once();
  const timer = setInterval(() => void once(), options.everyMs ?? RUN_SWEEP_EVERY_MS);
  // The sweep never keeps a process alive that has nothing else to do.
  timer.unref?.();
  return { first, stop: () => clearInterval(timer) };
}
