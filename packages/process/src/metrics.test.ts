import { describe, expect, it } from "vitest";
import { ConfigError, ConfigReader } from "./config";
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
