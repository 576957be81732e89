import {
  isWorkspaceTool,
  TOOL_ERROR_HTTP_STATUS,
  TOOL_NAMES,
  toolJsonSchema,
  toProviderName,
  type ToolName,
  WRITE_TOOL_NAMES,
} from "@mnote/contract";
import type { SqlKernel } from "@mnote/kernel";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hermesDetectsFailure } from "../hermes/hermes-wire";
import { hermesSafeJson } from "../hermes/model-text";
import { startBridge, type RunningBridge } from "./server";
import {
  captureLogger,
  createTestWorld,
  envelopeFor,
  routerCall,
  SAMPLE_ARGS,
  type SeededWorld,
} from "../test-support";

let kernel: SqlKernel;
let world: SeededWorld;
let bridge: RunningBridge;
const log = captureLogger();

beforeAll(async () => {
  const created = await createTestWorld();
  kernel = created.kernel;
  world = created;
  bridge = await startBridge({ kernel, port: 0, host: "127.0.0.1", logger: log.logger, rateLimit: null, env: {} });
});
afterAll(async () => {
  await bridge?.close();
  await kernel?.close();
});

async function post(
  name: string,
  body: unknown,
  options: { token?: string | null; headers?: Record<string, string>; raw?: boolean } = {},
) {
  const token = options.token === undefined ? world.tokens.owner : options.token;
  const response = await fetch(`${bridge.url}/v1/tools/${name}`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...options.headers,
    },
    body: options.raw ? (body as string) : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, json: JSON.parse(text) as Record<string, any> };
}

describe("GET /v1/tools", () => {
  it("lists the seven tools under both names with the contract's schemas and OpenAI entries", async () => {
    const response = await fetch(`${bridge.url}/v1/tools`);
    expect(response.status).toBe(200);
    const { tools } = (await response.json()) as { tools: Array<Record<string, any>> };
    expect(tools.map((t) => t.name)).toEqual(TOOL_NAMES);
    for (const tool of tools) {
      const contract = toolJsonSchema(tool.name as ToolName);
      expect(tool.providerName).toBe(toProviderName(tool.name));
      expect(tool.providerName).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
      expect(tool.parameters).toEqual(contract.parameters);
      expect(tool.description).toContain(tool.name);
      expect(tool.openai).toEqual({
        type: "function",
        function: {
          name: tool.providerName,
          description: contract.description,
          parameters: contract.strictParameters,
          strict: true,
        },
      });
    }
  });

  it("takes a strict-mode model's arguments for the listed tools: a null arg is absent, a null dryRun is refused", async () => {
    const absent = { id: null, level: null, checked: null, language: null };
    const strictArgs = {
      content: [
        { ...absent, type: "heading", text: "Strict heading" },
        { ...absent, type: "todo", text: "Strict todo", checked: true },
        { ...absent, type: "divider", text: null },
      ],
      mode: "append",
      baseRevision: null,
    };
    const written = await post("mnote_page_save", envelopeFor(world, "mnote.page.save", strictArgs));
    expect([written.status, written.json.ok]).toEqual([200, true]);
    const page = await post("mnote_page_get", envelopeFor(world, "mnote.page.get"));
    const blocks = (page.json.result.blocks as Array<Record<string, unknown>>).slice(-3);
    expect(blocks.map(({ id: _id, ...block }) => block)).toEqual([
      { type: "heading", text: "Strict heading", level: 1 },
      { type: "todo", text: "Strict todo", checked: true },
      { type: "divider", text: "" },
    ]);

    const before = await kernel.admin.tableSnapshot();
    const nullDryRun = await post(
      "mnote_page_save",
      envelopeFor(world, "mnote.page.save", strictArgs, { dryRun: null }),
    );
    expect([nullDryRun.status, nullDryRun.json.error.code]).toEqual([422, "mnote_tool_invalid_input"]);
    const after = await kernel.admin.tableSnapshot();
    expect(after.pages).toEqual(before.pages);
    expect(after.commands).toEqual(before.commands);
  });

  it("answers /healthz", async () => {
    const response = await fetch(`${bridge.url}/healthz`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ ok: true, tools: TOOL_NAMES.length });
  });

  it("keeps an idle connection longer than clients keep theirs (no send on a socket the bridge is closing)", async () => {
    const response = await fetch(`${bridge.url}/healthz`);
    await response.body?.cancel();
    expect(response.headers.get("keep-alive")).toBe("timeout=65");
  });
});

describe("POST /v1/tools/{name}: the router's envelope, byte for byte", () => {
  for (const tool of TOOL_NAMES) {
    it(`${tool}: success equals the router's answer for the same envelope`, async () => {
      const envelope = envelopeFor(world, tool);
      const answer = await post(toProviderName(tool), envelope);
      expect(answer.status).toBe(200);
      expect(answer.headers.get("content-type")).toBe("application/json; charset=utf-8");
      expect(answer.json.ok).toBe(true);
      expect(answer.json.toolName).toBe(tool);
      // Same envelope again, straight to the router: a read reads the same page, a write replays.
      const router = await routerCall(kernel, world.tokens.owner, tool, envelope);
      expect(answer.text).toBe(JSON.stringify(router));
    });
  }

  for (const tool of WRITE_TOOL_NAMES) {
    it(`${tool}: dry run`, async () => {
      const envelope = envelopeFor(world, tool, SAMPLE_ARGS[tool], { dryRun: true });
      const before = await kernel.admin.tableSnapshot();
      const answer = await post(tool, envelope);
      expect(answer.status).toBe(200);
      expect(answer.json.audit.effect).toBe("dry_run");
      expect(answer.json.result.dryRun).toBe(true);
      const router = await routerCall(kernel, world.tokens.owner, tool, envelope);
      expect(answer.text).toBe(JSON.stringify(router));
      const after = await kernel.admin.tableSnapshot();
      expect(after.pages).toEqual(before.pages);
      expect(after.commands).toEqual(before.commands);
    });

    it(`${tool}: permission denied for a viewer (403)`, async () => {
      const envelope = envelopeFor(world, tool, SAMPLE_ARGS[tool], { actorId: world.ids.viewer });
      const answer = await post(tool, envelope, { token: world.tokens.viewer });
      expect(answer.status).toBe(403);
      expect(answer.json.error.code).toBe("mnote_tool_permission_denied");
      const router = await routerCall(kernel, world.tokens.viewer, tool, envelope);
      expect(answer.text).toBe(JSON.stringify(router));
    });

    it(`${tool}: a retried call replays its first answer`, async () => {
      const envelope = envelopeFor(world, tool);
      const first = await post(tool, envelope);
      const second = await post(tool, { ...envelope, toolCallId: "retry" });
      expect(first.json.ok).toBe(true);
      expect(second.json.ok).toBe(true);
      expect(second.json.audit.commandId).toBe(first.json.audit.commandId);
      expect(second.json.result).toEqual(first.json.result);
      // mnote.page.create's records are the new page's (decision 0046).
      const audited = isWorkspaceTool(tool) ? (first.json.result.documentId as string) : world.ids.page;
      const audit = await kernel.listAudit({ documentId: audited });
      const outcomes = audit.filter((a) => a.commandId === first.json.audit.commandId).map((a) => a.outcome);
      expect(outcomes).toEqual(expect.arrayContaining(["ok", "replayed"]));
    });
  }

  it("accepts either spelling and answers with the canonical name", async () => {
    const viaCanonical = await post("mnote.page.get", envelopeFor(world, "mnote.page.get"));
    const viaProvider = await post("mnote_page_get", envelopeFor(world, "mnote.page.get"));
    expect(viaCanonical.json.toolName).toBe("mnote.page.get");
    expect(viaProvider.json.toolName).toBe("mnote.page.get");
  });

  it("maps error codes to the documented statuses (409 conflict, 422 option unsupported)", async () => {
    const stale = await post(
      "mnote_page_update_title",
      envelopeFor(world, "mnote.page.update_title", { title: "x", baseRevision: 0 }),
    );
    expect([stale.status, stale.json.error.code]).toEqual([409, "mnote_tool_conflict"]);
    const planned = await post(
      "mnote_page_update_options",
      envelopeFor(world, "mnote.page.update_options", { options: { protectEditing: true } }),
    );
    expect([planned.status, planned.json.error.code]).toEqual([422, "mnote_tool_option_unsupported"]);
    for (const answer of [stale, planned])
      expect(answer.status).toBe(TOOL_ERROR_HTTP_STATUS[answer.json.error.code as "mnote_tool_conflict"]);
  });
});

describe("X-Mnote-Result-Form: hermes", () => {
  for (const tool of TOOL_NAMES) {
    it(`${tool}: the same envelope as Hermes-safe text, which Hermes reads as a success`, async () => {
      const envelope = envelopeFor(world, tool);
      const answer = await post(tool, envelope, { headers: { "x-mnote-result-form": "hermes" } });
      expect(answer.status).toBe(200);
      const router = await routerCall(kernel, world.tokens.owner, tool, envelope);
      expect(answer.json).toStrictEqual(JSON.parse(JSON.stringify(router)));
      expect(answer.text).toBe(hermesSafeJson(router));
      expect(answer.text.toLowerCase()).not.toContain('"error"');
      expect(hermesDetectsFailure(answer.text)).toBe(false);
    });
  }

  it("keeps a refusal a failure for Hermes, with its status", async () => {
    const envelope = envelopeFor(world, "mnote.page.update_title", { title: "x" }, { actorId: world.ids.viewer });
    const answer = await post("mnote_page_update_title", envelope, {
      token: world.tokens.viewer,
      headers: { "x-mnote-result-form": "hermes" },
    });
    expect([answer.status, answer.json.error.code]).toEqual([403, "mnote_tool_permission_denied"]);
    expect(hermesDetectsFailure(answer.text)).toBe(true);
  });

  it("answers plain JSON without the header or for another form", async () => {
    for (const headers of [{}, { "x-mnote-result-form": "plain" }] as Record<string, string>[]) {
      const answer = await post("mnote_page_get", envelopeFor(world, "mnote.page.get"), { headers });
      expect(answer.text).toContain('"error":null');
    }
  });
});

describe("POST /v1/tools/{name}: refusals", () => {
  it("unknown tool: 404 mnote_tool_not_found", async () => {
    const answer = await post("mnote_page_delete", { toolCallId: "c1", traceId: "t1" });
    expect(answer.status).toBe(404);
    expect(answer.json).toMatchObject({
      ok: false,
      toolCallId: "c1",
      traceId: "t1",
      error: { code: "mnote_tool_not_found" },
    });
  });

  it("malformed JSON: 422 invalid input", async () => {
    const answer = await post("mnote_page_get", '{"toolName": "mnote.page.get",', { raw: true });
    expect(answer.status).toBe(422);
    expect(answer.json).toMatchObject({
      ok: false,
      toolName: "mnote.page.get",
      result: null,
      audit: { effect: "none", commandId: null },
      error: { code: "mnote_tool_invalid_input", message: "body is not valid JSON" },
    });
  });

  it("a JSON body that is not an object: 422 from the router", async () => {
    const answer = await post("mnote_page_get", "[1,2]", { raw: true });
    expect(answer.status).toBe(422);
    expect(answer.json.error.code).toBe("mnote_tool_invalid_input");
  });

  it.each([["text/plain"], ["application/x-www-form-urlencoded"], ["application/jsonp"]])(
    "wrong content type %s: 422 invalid input",
    async (type) => {
      const answer = await post("mnote_page_get", envelopeFor(world, "mnote.page.get"), {
        headers: { "content-type": type },
      });
      expect(answer.status).toBe(422);
      expect(answer.json.error).toEqual({
        code: "mnote_tool_invalid_input",
        message: "content-type must be application/json",
      });
    },
  );

  it("accepts application/json with a charset", async () => {
    const answer = await post("mnote_page_get", envelopeFor(world, "mnote.page.get"), {
      headers: { "content-type": "application/json; charset=utf-8" },
    });
    expect(answer.status).toBe(200);
  });

  it("a body over the limit (4 MiB): 413, refused before it is read", async () => {
    const big = JSON.stringify(
      envelopeFor(world, "mnote.page.save", { content: [{ type: "paragraph", text: "x".repeat(4 * 1024 * 1024) }] }),
    );
    const answer = await post("mnote_page_save", big, { raw: true });
    expect(answer.status).toBe(413);
    expect(answer.json).toMatchObject({
      ok: false,
      toolName: "mnote.page.save",
      error: { code: "mnote_tool_payload_too_large" },
    });
  });

  it("a chunked body that grows past the limit: 413", async () => {
    const chunk = new TextEncoder().encode("x".repeat(1024 * 1024));
    const stream = new ReadableStream({
      start(controller) {
        for (let i = 0; i < 6; i++) controller.enqueue(chunk);
        controller.close();
      },
    });
    const response = await fetch(`${bridge.url}/v1/tools/mnote_page_save`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${world.tokens.owner}` },
      body: stream,
      duplex: "half",
    });
    expect(response.status).toBe(413);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe("mnote_tool_payload_too_large");
  });

  it.each([
    ["missing", null],
    ["unknown", "mnt_not_a_token"],
    ["revoked", "revoked"],
  ])("%s token: 401 mnote_tool_unauthenticated", async (_label, token) => {
    const secret = token === "revoked" ? world.tokens.revoked : token;
    const answer = await post("mnote_page_get", envelopeFor(world, "mnote.page.get"), { token: secret });
    expect(answer.status).toBe(401);
    expect(answer.json.error.code).toBe("mnote_tool_unauthenticated");
  });

  it("GET on a tool is 405", async () => {
    const response = await fetch(`${bridge.url}/v1/tools/mnote_page_get`);
    expect(response.status).toBe(405);
    expect(await response.json()).toEqual({ error: { code: "mnote_tool_invalid_input", message: "use POST" } });
  });

  it("every refusal outside an envelope has the one shape { error: { code, message } }", async () => {
    const answers = [
      [await fetch(`${bridge.url}/nowhere`), 404, "mnote_tool_not_found"],
      [await fetch(`${bridge.url}/.well-known/oauth-protected-resource/mcp`), 404, "mnote_tool_not_found"],
      [await fetch(`${bridge.url}/v1/tools/mnote_page_get`), 405, "mnote_tool_invalid_input"],
      [await fetch(`${bridge.url}/v1/whoami`), 401, "mnote_tool_unauthenticated"],
      [
        await fetch(`${bridge.url}/v1/tools`, { method: "OPTIONS", headers: { origin: "http://app.example" } }),
        405,
        "mnote_tool_permission_denied",
      ],
    ] as const;
    for (const [response, status, code] of answers) {
      expect(response.status).toBe(status);
      const body = (await response.json()) as { error: { code: string; message: string } };
      expect(Object.keys(body)).toEqual(["error"]);
      expect(body.error.code).toBe(code);
      expect(typeof body.error.message).toBe("string");
    }
  });
});

describe("traceparent", () => {
  const traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

  it("fills traceId when the envelope has none", async () => {
    const { traceId: _none, ...envelope } = envelopeFor(world, "mnote.page.get");
    const answer = await post("mnote_page_get", envelope, { headers: { traceparent } });
    expect(answer.status).toBe(200);
    expect(answer.json.traceId).toBe("4bf92f3577b34da6a3ce929d0e0e4736");
    const [audit] = await kernel.listAudit({ traceId: "4bf92f3577b34da6a3ce929d0e0e4736" });
    expect(audit?.identity.toolCallId).toBe(envelope.toolCallId);
  });

  it("leaves the envelope's own traceId alone", async () => {
    const envelope = envelopeFor(world, "mnote.page.get", {}, { traceId: "mine" });
    const answer = await post("mnote_page_get", envelope, { headers: { traceparent } });
    expect(answer.json.traceId).toBe("mine");
  });

  it("ignores an invalid traceparent", async () => {
    const { traceId: _none, ...envelope } = envelopeFor(world, "mnote.page.get");
    const answer = await post("mnote_page_get", envelope, {
      headers: { traceparent: "00-00000000000000000000000000000000-00f067aa0ba902b7-01" },
    });
    expect(answer.status).toBe(422);
    expect(answer.json.traceId).toBeNull();
  });
});

describe("GET /v1/whoami", () => {
  it("answers the token's identity", async () => {
    const response = await fetch(`${bridge.url}/v1/whoami`, {
      headers: { authorization: `Bearer ${world.tokens.ownerReadOnly}` },
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ actorId: world.ids.owner, holder: "agent", capabilityScope: ["page.read"] });
    expect(body.tokenId).toMatch(/^tok_/);
  });

  it.each([
    ["none", undefined],
    ["revoked", "revoked"],
    ["unknown", "mnt_nope"],
  ])("refuses %s token with 401", async (_l, token) => {
    const secret = token === "revoked" ? world.tokens.revoked : token;
    const response = await fetch(`${bridge.url}/v1/whoami`, {
      headers: secret ? { authorization: `Bearer ${secret}` } : {},
    });
    expect(response.status).toBe(401);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe("mnote_tool_unauthenticated");
  });
});

describe("rate limit and CORS", () => {
  it("answers 429 mnote_tool_rate_limited past a token's burst, per token", async () => {
    const limited = await startBridge({
      kernel,
      port: 0,
      logger: log.logger,
      rateLimit: { ratePerSecond: 0.01, burst: 3 },
      env: {},
    });
    try {
      const call = (token: string) =>
        fetch(`${limited.url}/v1/tools/mnote_page_get`, {
          method: "POST",
          headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
          body: JSON.stringify(envelopeFor(world, "mnote.page.get")),
        });
      const statuses = [];
      for (let i = 0; i < 5; i++) statuses.push((await call(world.tokens.owner)).status);
      expect(statuses).toEqual([200, 200, 200, 429, 429]);
      const refused = await call(world.tokens.owner);
      expect(refused.headers.get("retry-after")).toMatch(/^\d+$/);
      expect(((await refused.json()) as { error: { code: string } }).error.code).toBe("mnote_tool_rate_limited");
      // Another token has its own bucket.
      expect((await call(world.tokens.ownerSecond)).status).toBe(200);
    } finally {
      await limited.close();
    }
  });

  it("/metrics: wrong bearers spend the address's failed-authentication budget (429), the right one still answers", async () => {
    const metricsToken = "metrics-token-long-enough-1234";
    const limited = await startBridge({
      kernel,
      port: 0,
      logger: log.logger,
      metricsToken,
      authFailureLimit: { perWindow: 3, windowMs: 60_000 },
      // The failure counts are shared through the database with the other bridges of this file: this test's
      // client comes from an address of its own (through a trusted proxy), so their failures are not its.
      trustedProxies: ["127.0.0.1"],
      env: {},
    });
    const address = { "x-forwarded-for": "198.51.100.31" };
    try {
      const scrape = (bearer: string) =>
        fetch(`${limited.url}/metrics`, { headers: { authorization: `Bearer ${bearer}`, ...address } });
      const statuses = [];
      for (let i = 0; i < 5; i++) statuses.push((await scrape(`guess-${i}`)).status);
      expect(statuses).toEqual([401, 401, 401, 429, 429]);
      expect((await scrape("guess")).headers.get("retry-after")).toMatch(/^\d+$/);
      // The same budget as the tool door: a made-up tool token from this address is refused too.
      const call = await fetch(`${limited.url}/v1/tools/mnote_page_get`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: "Bearer made-up", ...address },
        body: JSON.stringify(envelopeFor(world, "mnote.page.get")),
      });
      expect(call.status).toBe(429);
      expect((await scrape(metricsToken)).status).toBe(200);
      expect(
        (
          await fetch(`${limited.url}/v1/tools/mnote_page_get`, {
            method: "POST",
            headers: { "content-type": "application/json", authorization: `Bearer ${world.tokens.owner}`, ...address },
            body: JSON.stringify(envelopeFor(world, "mnote.page.get")),
          })
        ).status,
      ).toBe(200);
    } finally {
      await limited.close();
    }
  });

  it("sends no CORS headers unless configured", async () => {
    const response = await fetch(`${bridge.url}/v1/tools`, { headers: { origin: "http://app.example" } });
    expect(response.headers.get("access-control-allow-origin")).toBeNull();
    const preflight = await fetch(`${bridge.url}/v1/tools/mnote_page_get`, {
      method: "OPTIONS",
      headers: { origin: "http://app.example" },
    });
    expect(preflight.status).toBe(405);
  });

  it("answers CORS for configured origins only", async () => {
    const withCors = await startBridge({
      kernel,
      port: 0,
      logger: log.logger,
      corsOrigins: ["http://app.example"],
      env: {},
    });
    try {
      const preflight = await fetch(`${withCors.url}/v1/tools/mnote_page_get`, {
        method: "OPTIONS",
        headers: { origin: "http://app.example", "access-control-request-method": "POST" },
      });
      expect(preflight.status).toBe(204);
      expect(preflight.headers.get("access-control-allow-origin")).toBe("http://app.example");
      expect(preflight.headers.get("access-control-allow-headers")).toContain("authorization");
      const other = await fetch(`${withCors.url}/v1/tools`, { headers: { origin: "http://evil.example" } });
      expect(other.headers.get("access-control-allow-origin")).toBeNull();
    } finally {
      await withCors.close();
    }
  });
});
