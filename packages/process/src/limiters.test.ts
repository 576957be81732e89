import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { AuthFailureLimiter, type SharedWindowCounter } from "./limiters";

describe("AuthFailureLimiter", () => {
  it("lets at most perWindow failures through per address and window, whatever the order of addresses", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 8 }),
        fc.array(fc.tuple(fc.constantFrom("a", "b", "c"), fc.integer({ min: 0, max: 5_000 })), { maxLength: 120 }),
        async (perWindow, events) => {
          let now = 0;
          const limiter = new AuthFailureLimiter({ perWindow, windowMs: 1000 }, null, () => now);
          const passed = new Map<string, number>();
          for (const [address, step] of events) {
            now += step;
            if (!limiter.check(address).allowed) continue;
            const key = `${address}:${Math.floor(now / 1000)}`;
            passed.set(key, (passed.get(key) ?? 0) + 1);
            await limiter.fail(address);
          }
          for (const count of passed.values()) expect(count).toBeLessThanOrEqual(perWindow);
        },
      ),
    );
  });

  it("a refused address is told when its window ends, and is let through again then", async () => {
    let now = 10_500;
    const limiter = new AuthFailureLimiter({ perWindow: 2, windowMs: 1000 }, null, () => now);
    await limiter.fail("x");
    expect(await limiter.fail("x")).toEqual({ allowed: false, retryAfterMs: 500 });
    expect(limiter.check("y").allowed).toBe(true);
    now = 11_000;
    expect(limiter.check("x").allowed).toBe(true);
  });

  it("with a shared counter, another instance's failures count here too", async () => {
    const counts = new Map<string, number>();
    const shared: SharedWindowCounter = async (key, start) => {
      const k = `${key}@${start.toISOString()}`;
      counts.set(k, (counts.get(k) ?? 0) + 1);
      return counts.get(k)!;
    };
    const a = new AuthFailureLimiter({ perWindow: 4, windowMs: 60_000 }, shared, () => 0);
    const b = new AuthFailureLimiter({ perWindow: 4, windowMs: 60_000 }, shared, () => 0);
    for (let i = 0; i < 3; i++) await a.fail("x");
    expect(a.check("x").allowed).toBe(true);
    expect((await b.fail("x")).allowed).toBe(false);
    // a learns on its next failure; it never lets more than one extra through.
    expect((await a.fail("x")).allowed).toBe(false);
  });

  it("keeps counting locally when the shared counter fails (database down)", async () => {
    const limiter = new AuthFailureLimiter(
      { perWindow: 1, windowMs: 60_000 },
      () => Promise.reject(new Error("down")),
      () => 0,
    );
    expect((await limiter.fail("x")).allowed).toBe(false);
  });

  it("failedAttempt: at most perWindow failing attempts are answered as failures, the rest refused uncounted", async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 8 }), fc.integer({ min: 0, max: 40 }), async (perWindow, attempts) => {
        let writes = 0;
        const shared: SharedWindowCounter = async () => ++writes;
        const limiter = new AuthFailureLimiter({ perWindow, windowMs: 60_000 }, shared, () => 0);
        const decisions = [];
        for (let i = 0; i < attempts; i++) decisions.push((await limiter.failedAttempt("x")).allowed);
        expect(decisions.filter(Boolean)).toHaveLength(Math.min(perWindow, attempts));
        expect(decisions.slice(0, Math.min(perWindow, attempts)).every(Boolean)).toBe(true);
        // A refused attempt costs the shared counter no write.
        expect(writes).toBe(Math.min(perWindow, attempts));
      }),
    );
  });
});
