import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { HermesClient, HermesRefused, HermesUnreachable } from "./client";
import { checkReadiness, hermesFailureAnswer, ReadinessCache, type HermesReadiness } from "./readiness";

const KEY = "panel-key-0123456789";

/**
 * An HTTP server answering like Hermes's API server (gateway/platforms/api_server.py, 0.18–0.19): `/health` with no
 * key, `/v1/*` only with the API_SERVER_KEY (else 401 in OpenAI's error shape), `GET /v1/toolsets` as the report of
 * config.yaml's `platform_toolsets.api_server`. What it reports is set per test.
 */
let server: Server;
let url: string;
let toolsets: { status: number; body: unknown };

function toolset(name: string, enabled: boolean, tools: string[]) {
  return { name, label: name, description: `${name} tools`, enabled, configured: true, tools };
}

beforeAll(async () => {
  server = createServer((req, res) => {
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(body));
    };
    if (req.url === "/health") return send(200, { status: "ok", platform: "hermes-agent", version: "0.19.0" });
    if (req.headers.authorization !== `Bearer ${KEY}`)
      return send(401, {
        error: { message: "Invalid API key", type: "invalid_request_error", code: "invalid_api_key" },
      });
    if (req.url === "/v1/toolsets") return send(toolsets.status, toolsets.body);
    return send(404, { error: { message: "Not found", type: "invalid_request_error", code: null } });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
beforeEach(() => {
  toolsets = {
    status: 200,
    body: {
      object: "list",
      platform: "api_server",
      data: [toolset("mnote", true, ["mnote_page_get"]), toolset("terminal", false, ["terminal"])],
    },
  };
});

const client = (apiKey = KEY, at = url) => new HermesClient({ url: at, apiKey, timeoutMs: 5_000 });

describe("checkReadiness: may the panel ask this Hermes, and if not, what to change", () => {
  it("connected when Hermes answers, takes the key and offers a run only mnote's toolset", async () => {
    // 0.19 has no GET /v1/capabilities (404): it supports none of 0.21's run features.
    expect(await checkReadiness(client(), ["mnote"])).toEqual({
      connected: true,
      help: null,
      version: "0.19.0",
      features: { runsIdempotency: false },
    });
  });

  it("off when a run would get another toolset: names it, its tools, and the config.yaml line", async () => {
    toolsets.body = {
      object: "list",
      platform: "api_server",
      data: [toolset("mnote", true, ["mnote_page_get"]), toolset("terminal", true, ["terminal", "process"])],
    };
    const readiness = await checkReadiness(client(), ["mnote"]);
    expect(readiness.connected).toBe(false);
    expect(readiness.version).toBe("0.19.0");
    expect(readiness.help).toContain("the toolsets terminal (terminal, process…)");
    expect(readiness.help).toContain("platform_toolsets: { api_server: [mnote, no_mcp] }");
    // The operator may allow more: then the same report is fine.
    expect((await checkReadiness(client(), ["mnote", "terminal"])).connected).toBe(true);
  });

  it("off with the key to fix when Hermes refuses it, with the version /health gave", async () => {
    expect(await checkReadiness(client("another-key-0123456"), ["mnote"])).toEqual({
      connected: false,
      help: "Hermes refused the panel's key: MNOTE_HERMES_API_KEY must equal Hermes's API_SERVER_KEY.",
      version: "0.19.0",
    });
  });

  it("off when this Hermes does not report its toolsets (404), or reports something that is not a list", async () => {
    toolsets = { status: 404, body: { error: { message: "Not found", type: "invalid_request_error", code: null } } };
    expect((await checkReadiness(client(), ["mnote"])).help).toContain("does not report its toolsets");
    toolsets = { status: 200, body: { object: "list" } };
    expect((await checkReadiness(client(), ["mnote"])).help).toBe(
      "Ask Hermes is off: Hermes answered 502 when asked for its toolsets.",
    );
  });

  it("off, saying where it looked, when nothing answers", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const at = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const readiness = await checkReadiness(client(KEY, at), ["mnote"]);
    expect(readiness).toMatchObject({ connected: false, version: null });
    expect(readiness.help).toBe(`${new HermesUnreachable(at).message} The box works again once it answers.`);
  });
});

describe("hermesFailureAnswer: a failed call to Hermes in the contract's words", () => {
  it("unreachable: 502, nothing was sent", () => {
    expect(hermesFailureAnswer(new HermesUnreachable("http://h:8642"))).toEqual({
      code: "mnote_tool_unavailable",
      message: `${new HermesUnreachable("http://h:8642").message} Nothing was sent; ask again when it is back.`,
      status: 502,
      headers: {},
    });
  });

  it("the key refused: 502 naming the two settings; busy: 429 with Retry-After; any other answer: 502 quoting it", () => {
    expect(hermesFailureAnswer(new HermesRefused(401, "Invalid API key", "invalid_api_key"))).toMatchObject({
      code: "mnote_tool_unavailable",
      message: "Hermes refused the panel's key: MNOTE_HERMES_API_KEY must equal Hermes's API_SERVER_KEY.",
      status: 502,
    });
    expect(hermesFailureAnswer(new HermesRefused(429, "Too many concurrent runs", null))).toEqual({
      code: "mnote_tool_rate_limited",
      message: "Hermes is busy with as many runs as it allows; try again in a moment.",
      status: 429,
      headers: { "retry-after": "1" },
    });
    expect(hermesFailureAnswer(new HermesRefused(500, "model provider down", null))).toMatchObject({
      code: "mnote_tool_unavailable",
      message: "Hermes answered 500: model provider down",
      status: 502,
    });
  });

  it("an error that did not come from talking to Hermes is not its to answer", () => {
    expect(hermesFailureAnswer(new Error("database down"))).toBeNull();
    expect(hermesFailureAnswer("nope")).toBeNull();
  });
});

describe("ReadinessCache", () => {
  it("checks once per age for one Hermes, again when it is older or another Hermes is asked about", async () => {
    let now = 0;
    let probes = 0;
    const cache = new ReadinessCache(() => now);
    const probe = (): Promise<HermesReadiness> =>
      Promise.resolve({ connected: true, help: null, version: String(++probes) });
    expect((await cache.get("http://a", probe)).version).toBe("1");
    now = 9_999;
    expect((await cache.get("http://a", probe)).version).toBe("1");
    // Before a run the check may be at most 2 s old.
    expect((await cache.get("http://a", probe, 2_000)).version).toBe("2");
    now = 10_500;
    expect((await cache.get("http://a", probe)).version).toBe("2");
    now = 20_000;
    expect((await cache.get("http://a", probe)).version).toBe("3");
    expect((await cache.get("http://b", probe)).version).toBe("4");
  });
});
