import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startBridge, type RunningBridge } from "@mnote/hermes-bridge";
import { metricsAnswer, observeKernel } from "@mnote/process";
// The panel's `/api/trpc` handler, exactly what apps/web/src/app/api/trpc/[trpc]/route.ts serves.
import { handlePanelApi } from "../../apps/web/src/server/panel-api";
import { captureLogger, createWorld, postTool, type World } from "./support";

/** Issue 20 item 5: /metrics answers only its bearer, and moves when calls are made. */
const METRICS_TOKEN = "metrics-token-0123456789";
let world: World;
let bridge: RunningBridge;
let bare: RunningBridge;
beforeAll(async () => {
  world = await createWorld();
  bridge = await startBridge({
    kernel: world.kernel,
    port: 0,
    host: "127.0.0.1",
    logger: captureLogger().logger,
    rateLimit: null,
    env: { MNOTE_METRICS_TOKEN: METRICS_TOKEN },
  });
  bare = await startBridge({
    kernel: world.kernel,
    port: 0,
    host: "127.0.0.1",
    logger: captureLogger().logger,
    rateLimit: null,
    env: {},
  });
});
afterAll(async () => {
  await bridge?.close();
  await bare?.close();
  await world?.close();
});

const scrape = async (url: string, token: string | null = METRICS_TOKEN) => {
  const answer = await fetch(url, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  return { status: answer.status, text: await answer.text(), type: answer.headers.get("content-type") };
};

/** The value of one sample line, e.g. `mnote_tool_calls_total{tool="mnote.page.get",door="http",outcome="ok"}`. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  for (const line of text.split("\n")) {
    if (!line.startsWith(name)) continue;
    const rest = line.slice(name.length);
    if (rest[0] !== "{" && rest[0] !== " ") continue;
    if (wanted.every((pair) => rest.includes(pair))) return Number(line.slice(line.lastIndexOf(" ") + 1));
  }
  return 0;
}

describe("the bridge's GET /metrics", () => {
  it("is 404 while MNOTE_METRICS_TOKEN is unset, 401 without its bearer", async () => {
    expect((await scrape(`${bare.url}/metrics`)).status).toBe(404);
    expect((await scrape(`${bridge.url}/metrics`, null)).status).toBe(401);
    expect((await scrape(`${bridge.url}/metrics`, "metrics-token-wrong-000000")).status).toBe(401);
    const ok = await scrape(`${bridge.url}/metrics`);
    expect(ok.status).toBe(200);
    expect(ok.type).toContain("text/plain");
  });

  it("moves when calls are made: calls by tool, door and outcome, latency, pending proposals; no ids in labels", async () => {
    const before = (await scrape(`${bridge.url}/metrics`)).text;
    const auth = { authorization: `Bearer ${world.tokens.owner}` };
    for (let i = 0; i < 3; i++) {
      expect((await postTool(bridge, "mnote.page.get", world.envelope("mnote.page.get"), auth)).status).toBe(200);
    }
    await postTool(bridge, "mnote.page.get", world.envelope("mnote.page.get"), { authorization: "Bearer nope" });
    const dry = world.envelope("mnote.page.update_title", { dryRun: true, args: { title: "Proposed" } });
    expect((await postTool(bridge, "mnote.page.update_title", dry, auth)).status).toBe(200);
    await postTool(bridge, "mnote.no_such_tool", world.envelope("mnote.page.get"), auth);
    const after = (await scrape(`${bridge.url}/metrics`)).text;

    const calls = (text: string, labels: Record<string, string>) => sample(text, "mnote_tool_calls_total", labels);
    const ok = { tool: "mnote.page.get", door: "http", outcome: "ok" };
    expect(calls(after, ok) - calls(before, ok)).toBe(3);
    const refused = { tool: "mnote.page.get", door: "http", outcome: "mnote_tool_unauthenticated" };
    expect(calls(after, refused) - calls(before, refused)).toBe(1);
    const unknown = { tool: "unknown", door: "http", outcome: "mnote_tool_not_found" };
    expect(calls(after, unknown) - calls(before, unknown)).toBe(1);
    const latency = { tool: "mnote.page.get", door: "http" };
    expect(
      sample(after, "mnote_tool_call_duration_seconds_count", latency) -
        sample(before, "mnote_tool_call_duration_seconds_count", latency),
    ).toBe(4);
    expect(sample(after, "mnote_proposals_pending")).toBeGreaterThanOrEqual(1);
    expect(after).toContain("mnote_db_pool_in_use");
    expect(after).toContain("mnote_change_feed_lag_seconds_count");
    // Labels carry no ids, tokens or text.
    for (const secret of [world.tokens.owner, world.ids.page, world.ids.ws, "Proposed", "no_such_tool"]) {
      expect(after).not.toContain(secret);
    }
  });
});

describe("the panel's metrics", () => {
  it("count the panel's procedures by name (a made-up path as unknown), answered only with the bearer", async () => {
    observeKernel(world.kernel);
    const read = () => metricsAnswer(METRICS_TOKEN, `Bearer ${METRICS_TOKEN}`).then((a) => a.body);
    expect((await metricsAnswer(null, `Bearer ${METRICS_TOKEN}`)).status).toBe(404);
    expect((await metricsAnswer(METRICS_TOKEN, "Bearer x")).status).toBe(401);
    const before = await read();
    const get = (path: string) =>
      handlePanelApi(
        new Request(`http://127.0.0.1:4200/api/trpc/${path}`, {
          headers: { host: "127.0.0.1:4200", cookie: `mnote_session=${world.personTokens.owner}` },
        }),
        { kernel: async () => world.kernel, limiter: null },
      );
    expect((await get("panel.session.me")).status).toBe(200);
    expect((await get("panel.session.me")).status).toBe(200);
    expect((await get("panel.nothing.here")).status).toBe(404);
    const after = await read();
    const me = { tool: "panel.session.me", door: "panel", outcome: "ok" };
    expect(sample(after, "mnote_tool_calls_total", me) - sample(before, "mnote_tool_calls_total", me)).toBe(2);
    const unknown = { tool: "unknown", door: "panel", outcome: "http_404" };
    expect(sample(after, "mnote_tool_calls_total", unknown) - sample(before, "mnote_tool_calls_total", unknown)).toBe(
      1,
    );
    expect(after).not.toContain("panel.nothing.here");
  });
});
