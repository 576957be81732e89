import type { Clock } from "@mnote/kernel";
import type { Logger } from "./logger";

/**
 * Housekeeping jobs of a long-running process (the bridge's `serve`, the panel's server): audit retention, expired
 * idempotency records, OAuth leftovers, run text. Each job is registered once with a name and an interval and runs
 * at start and then whenever its interval has passed *on the clock the process was given* (the kernel's, clock.ts).
 *
 * Why a scheduler of our own and not one `setInterval` per job: the timer only wakes the scheduler; whether a job is
 * due is decided by `clock.now()`, so a test moves a `ManualClock` and calls `tick()` instead of sleeping, and a
 * job that takes longer than its interval never overlaps itself (one run of a job at a time). A job's failure is
 * logged and retried at its next interval; it never stops the other jobs or the process.
 *
 * Jobs that must run on one instance at a time (PostgreSQL with several bridges) take the kernel's lock themselves
 * (`SqlKernel.housekeeping`): the scheduler only decides when, on every process alike.
 *
 * Usage:
 *   const scheduler = new Scheduler({ clock: kernel.clock, logger });
 *   scheduler.register("audit-retention", 10 * 60_000, (now) => kernel.housekeeping.sweepAudit(now, settings));
 *   scheduler.start();        // runs every job once now, then wakes every `wakeMs`
 *   …
 *   await scheduler.stop();   // no new runs; waits for the running ones
 */
export type ScheduledJob = (now: Date) => Promise<unknown>;

export interface SchedulerOptions {
  clock: Clock;
  logger: Logger;
  /** How often the timer wakes to look for due jobs (real time); default: a minute, or less for a shorter job. */
  wakeMs?: number;
}

interface Entry {
  name: string;
  intervalMs: number;
  fn: ScheduledJob;
  /** Clock time of the last start; null: never ran (due at once). */
  lastStart: number | null;
  running: Promise<void> | null;
}

const DEFAULT_WAKE_MS = 60_000;

export class Scheduler {
  private readonly jobs = new Map<string, Entry>();
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;

  constructor(private readonly options: SchedulerOptions) {}

  /** Adds a job; a name names one job (a second registration of it is a programming error). */
  register(name: string, intervalMs: number, fn: ScheduledJob): this {
    if (this.jobs.has(name)) throw new Error(`scheduler: job ${name} is already registered`);
    if (!Number.isFinite(intervalMs) || intervalMs <= 0)
      throw new Error(`scheduler: job ${name} needs an interval > 0`);
    this.jobs.set(name, { name, intervalMs, fn, lastStart: null, running: null });
    return this;
  }

  /** The registered jobs' names, in registration order (for logs and tests). */
  names(): string[] {
    return [...this.jobs.keys()];
  }

  /** Runs every job now (they are all due) and then wakes on a timer that does not keep the process alive. */
  start(): void {
    if (this.timer || this.stopped) return;
    const shortest = Math.min(...[...this.jobs.values()].map((job) => job.intervalMs), DEFAULT_WAKE_MS);
    const wakeMs = this.options.wakeMs ?? shortest;
    void this.tick();
    this.timer = setInterval(() => void this.tick(), wakeMs);
    this.timer.unref();
  }

  /**
   * Starts every job that is due on the clock and is not running, and resolves when those runs end. The timer calls
   * it; a test calls it after moving its clock. Never rejects: a job's failure is logged.
   */
  async tick(): Promise<void> {
    if (this.stopped) return;
    const now = this.options.clock.now();
    const started: Promise<void>[] = [];
    for (const job of this.jobs.values()) {
      if (job.running) continue;
      if (job.lastStart !== null && now.getTime() - job.lastStart < job.intervalMs) continue;
      job.lastStart = now.getTime();
      job.running = this.runOnce(job, now).finally(() => {
        job.running = null;
      });
      started.push(job.running);
    }
    await Promise.all(started);
  }

  private async runOnce(job: Entry, now: Date): Promise<void> {
    try {
      const result = await job.fn(now);
      // A run that removed or changed nothing says nothing: a quiet instance's log stays quiet.
      if (result && typeof result === "object" && Object.values(result).some((v) => typeof v === "number" && v > 0))
        this.options.logger.info({ job: job.name, ...(result as Record<string, unknown>) }, "housekeeping job ran");
    } catch (error) {
      // Ids and error types only: a job's error may quote a row.
      this.options.logger.warn(
        { job: job.name, errorType: error instanceof Error ? error.name : typeof error },
        "housekeeping job failed; retried at its next interval",
      );
    }
  }

  /** No new runs; resolves when the running ones end (a process closes its kernel after this). */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    const running = [...this.jobs.values()].flatMap((job) => (job.running ? [job.running] : []));
    await Promise.all(running);
  }
}
