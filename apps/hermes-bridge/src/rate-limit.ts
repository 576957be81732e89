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

/** A token bucket per key (one key per bearer token). In memory: one bridge process, one budget. */
export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();

  constructor(
    readonly settings: RateLimitSettings = DEFAULT_RATE_LIMIT,
    private readonly now: () => number = () => performance.now(),
    private readonly maxKeys = 10_000,
  ) {
    if (!(settings.ratePerSecond > 0) || !(settings.burst >= 1)) throw new Error("rate limit needs ratePerSecond > 0 and burst >= 1");
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
