/**
 * Where time comes from. The kernel (every `created_at`, `at` and `expires_at` it writes), the router's checks
 * (is a token expired, when does an idempotency key's result expire) and every sweep of expired records take the
 * time from one clock per process: it is given to the kernel when it opens (`SqlKernel.open(driver, { clock })`,
 * `openKernel(url, { clock })`), and the tools context reads it from there (`ctx.clock`). Nothing else calls
 * `new Date()` for a time it stores or compares, so a test passes time by moving a `ManualClock`, not by sleeping.
 */
export interface Clock {
  now(): Date;
}

/** The wall clock: what every process runs on. */
export const systemClock: Clock = { now: () => new Date() };

/** A clock that moves only when told to: a test passes a token's or a key's lifetime with `advance`, at once. */
export class ManualClock implements Clock {
  private at: number;

  constructor(start: Date | string | number = Date.now()) {
    this.at = new Date(start).getTime();
  }

  now(): Date {
    return new Date(this.at);
  }

  advance(ms: number): void {
    this.at += ms;
  }
}

/** `seconds` after the clock's now, as the ISO string the kernel stores. */
export const isoAfter = (clock: Clock, ms: number): string => new Date(clock.now().getTime() + ms).toISOString();
