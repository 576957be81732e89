export interface RateLimitSettings {
  /** Tokens added per second. */
  ratePerSecond: number;
  /** Bucket size: how many calls may arrive at once. */
  burst: number;
}

export const DEFAULT_RATE_LIMIT: RateLimitSettings = { ratePerSecond: 20, burst: 40 };

export type RateDecision = { allowed: true } | { allowed: false; retryAfterMs: number };

interface Bucket {
  tokens: number;
  at: number;
}

/**
 * A token bucket per key (one key per bearer token). In memory: one process, one budget; several
 * bridges behind a balancer each hold their own (decision 0014: the per-token budget is per instance).
 */
export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();

  constructor(
    readonly settings: RateLimitSettings = DEFAULT_RATE_LIMIT,
    private readonly now: () => number = () => performance.now(),
    private readonly maxKeys = 10_000,
  ) {
    if (!(settings.ratePerSecond > 0) || !(settings.burst >= 1))
      throw new Error("rate limit needs ratePerSecond > 0 and burst >= 1");
  }

  take(key: string): RateDecision {
    const now = this.now();
    const { ratePerSecond, burst } = this.settings;
    let bucket = this.buckets.get(key);
    if (!bucket) {
      if (this.buckets.size >= this.maxKeys) this.prune(now);
      bucket = { tokens: burst, at: now };
      this.buckets.set(key, bucket);
    } else {
      bucket.tokens = Math.min(burst, bucket.tokens + ((now - bucket.at) / 1000) * ratePerSecond);
      bucket.at = now;
    }
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return { allowed: true };
    }
    return { allowed: false, retryAfterMs: Math.ceil(((1 - bucket.tokens) / ratePerSecond) * 1000) };
  }

  /** Forget buckets that have refilled: they hold no state a fresh bucket would not. */
  private prune(now: number) {
    const { ratePerSecond, burst } = this.settings;
    for (const [key, bucket] of this.buckets) {
      if (bucket.tokens + ((now - bucket.at) / 1000) * ratePerSecond >= burst) this.buckets.delete(key);
    }
    // Still full of busy keys: drop the oldest rather than grow without bound.
    for (const key of this.buckets.keys()) {
      if (this.buckets.size < this.maxKeys) break;
      this.buckets.delete(key);
    }
  }
}

export interface AuthFailureLimitSettings {
  /** Failed authentications one client address may have per window, across every instance sharing the counter. */
  perWindow: number;
  windowMs: number;
}

export const DEFAULT_AUTH_FAILURE_LIMIT: AuthFailureLimitSettings = { perWindow: 30, windowMs: 60_000 };

/**
 * Where failed authentications are counted when several processes must share one budget: the
 * kernel's fixed-window counter (`kernel.countInWindow`). Returns the count after adding one.
 */
export type SharedWindowCounter = (key: string, windowStart: Date, windowMs: number) => Promise<number>;

interface FailureWindow {
  window: number;
  count: number;
}

/**
 * Failed authentication, limited per client address (not per presented token: rotating fake
 * tokens must not buy fresh budgets). Only failing attempts are limited: a door resolves the token
 * first and asks `failedAttempt` only when it resolves to nothing, so a valid token is never refused
 * for its address's failures (issue 20). Fixed windows: `check` is free (memory only); `fail` counts
 * one failure, locally and, when given, in the shared counter, so that an address refused by one
 * instance's count is refused by every instance after its next failure there. Only failures cost a
 * write; a client that authenticates costs nothing.
 */
export class AuthFailureLimiter {
  private readonly windows = new Map<string, FailureWindow>();

  constructor(
    readonly settings: AuthFailureLimitSettings = DEFAULT_AUTH_FAILURE_LIMIT,
    private readonly shared: SharedWindowCounter | null = null,
    private readonly now: () => number = () => Date.now(),
    private readonly maxKeys = 10_000,
  ) {
    if (!(settings.perWindow >= 1) || !(settings.windowMs >= 1000))
      throw new Error("auth failure limit needs perWindow >= 1 and windowMs >= 1000");
  }

  private current(address: string) {
    const window = Math.floor(this.now() / this.settings.windowMs);
    const entry = this.windows.get(address);
    return entry && entry.window === window ? entry : { window, count: 0 };
  }

  private refusal(entry: FailureWindow): RateDecision {
    if (entry.count < this.settings.perWindow) return { allowed: true };
    return { allowed: false, retryAfterMs: Math.max(1, (entry.window + 1) * this.settings.windowMs - this.now()) };
  }

  /** May a request from `address` be authenticated at all? No I/O. */
  check(address: string): RateDecision {
    return this.refusal(this.current(address));
  }

  /**
   * One failing attempt from `address` (its bearer resolved to no live token): refused (429) while the address
   * is over its budget, and then not counted again (no write: a flood costs the shared counter nothing more);
   * else counted, and answered as the failure it is (401). A request whose token resolves never comes here, so
   * the failures of other clients at its address never refuse it (issue 20).
   */
  async failedAttempt(address: string): Promise<RateDecision> {
    const now = this.check(address);
    if (!now.allowed) return now;
    await this.fail(address);
    return { allowed: true };
  }

  /** Count one failed authentication from `address`; the decision for its next request. */
  async fail(address: string): Promise<RateDecision> {
    const entry = this.current(address);
    entry.count += 1;
    if (this.shared) {
      try {
        const total = await this.shared(
          `auth_failure:${address}`,
          new Date(entry.window * this.settings.windowMs),
          this.settings.windowMs,
        );
        entry.count = Math.max(entry.count, total);
      } catch {
        // The database is unreachable: the local count still limits this instance.
      }
    }
    if (!this.windows.has(address) && this.windows.size >= this.maxKeys) this.prune(entry.window);
    this.windows.set(address, entry);
    return this.refusal(entry);
  }

  private prune(window: number) {
    for (const [key, entry] of this.windows) if (entry.window !== window) this.windows.delete(key);
    for (const key of this.windows.keys()) {
      if (this.windows.size < this.maxKeys) break;
      this.windows.delete(key);
    }
  }
}
