import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ConfigError, ConfigReader } from "./config";
import { AuthFailureLimiter } from "./limiters";
import { metricsAnswer, metricsTokenFromEnv, mnoteMetrics, recordToolCall } from "./metrics";

const read = (env: Record<string, string | undefined>) => {
  const config = new ConfigReader(env);
  const token = metricsTokenFromEnv(config);
  config.done();
  return token;
};

describe("MNOTE_METRICS_TOKEN", () => {
  it("unset or empty: no endpoint; a short or spaced token stops the process at start", () => {
    expect(read({})).toBeNull();
    expect(read({ MNOTE_METRICS_TOKEN: "  " })).toBeNull();
    expect(read({ MNOTE_METRICS_TOKEN: "a-long-enough-token-1234" })).toBe("a-long-enough-token-1234");
    expect(() => read({ MNOTE_METRICS_TOKEN: "short" })).toThrow(ConfigError);
    expect(() => read({ MNOTE_METRICS_TOKEN: "has a space in the middle!" })).toThrow(/MNOTE_METRICS_TOKEN/);
  });
});

describe("metricsAnswer", () => {
  it("404 without a configured token, 401 for any other bearer, the exposition for the right one", async () => {
    const token = "a-long-enough-token-1234";
    expect((await metricsAnswer(null, `Bearer ${token}`)).status).toBe(404);
    // Refusals have the doors' one shape, whichever door serves the metrics.
    for (const [answer, code] of [
      [await metricsAnswer(null, `Bearer ${token}`), "mnote_tool_not_found"],
      [await metricsAnswer(token, "Bearer wrong"), "mnote_tool_unauthenticated"],
    ] as const) {
      expect(answer.contentType).toContain("application/json");
      expect((JSON.parse(answer.body) as { error: { code: string } }).error.code).toBe(code);
    }
    for (const wrong of [undefined, "", "Bearer", `Bearer ${token}x`, `Basic ${token}`]) {
      expect((await metricsAnswer(token, wrong)).status).toBe(401);
    }
    recordToolCall("mnote.page.get", "http", "ok", 0.002);
    const answer = await metricsAnswer(token, `Bearer ${token}`);
    expect(answer.status).toBe(200);
    expect(answer.contentType).toBe(mnoteMetrics().registry.contentType);
    expect(answer.body).toMatch(/mnote_tool_calls_total\{tool="mnote.page.get",door="http",outcome="ok"\} \d+/);
  });
});

describe("metricsAnswer: wrong bearers spend the door's failed-authentication budget (issue 31, finding 10)", () => {
  const token = "a-long-enough-token-1234";

  it("429 with Retry-After once the budget is spent; the right bearer still answers", async () => {
    let now = 0;
    const failures = new AuthFailureLimiter({ perWindow: 3, windowMs: 60_000 }, null, () => now);
    const budget = () => failures.failedAttempt("10.0.0.1");
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await metricsAnswer(token, `Bearer guess-${i}`, budget)).status);
    expect(statuses).toEqual([401, 401, 401, 429, 429, 429]);
    const refused = await metricsAnswer(token, "Bearer guess", budget);
    expect(refused.headers["retry-after"]).toBe("60");
    // Never a lock-out of the good client: the right bearer is answered while guesses are refused.
    expect((await metricsAnswer(token, `Bearer ${token}`, budget)).status).toBe(200);
    now += 60_000;
    expect((await metricsAnswer(token, "Bearer guess", budget)).status).toBe(401);
  });

  it("the right bearer never spends the budget; any other bearer, of any length, is refused", async () => {
    let spent = 0;
    const budget = () => {
      spent++;
      return { allowed: true } as const;
    };
    expect((await metricsAnswer(token, `Bearer ${token}`, budget)).status).toBe(200);
    expect(spent).toBe(0);
    await fc.assert(
      fc.asyncProperty(fc.string({ minLength: 1, maxLength: 80 }), async (guess) => {
        fc.pre(guess !== token && !/\s/.test(guess));
        expect((await metricsAnswer(token, `Bearer ${guess}`, budget)).status).toBe(401);
      }),
      { numRuns: 50 },
    );
    expect(spent).toBeGreaterThan(0);
  });
});
