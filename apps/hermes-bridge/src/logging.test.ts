import type { SqlKernel } from "@mnote/kernel";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startBridge, type RunningBridge } from "./http/server";
import { captureLogger, createTestWorld, envelopeFor, type SeededWorld, SCHEMA_VALIDATORS } from "./test-support";

let kernel: SqlKernel;
let world: SeededWorld;
let bridge: RunningBridge;
const log = captureLogger();

beforeAll(async () => {
  const created = await createTestWorld();
  kernel = created.kernel;
  world = created;
  bridge = await startBridge({
    kernel,
    port: 0,
    logger: log.logger,
    rateLimit: { ratePerSecond: 1, burst: 100 },
    env: {},
  });
});
afterAll(async () => {
  await bridge?.close();
  await kernel?.close();
});

const FIELDS = [
  "transport",
  "tool",
  "ok",
  "effect",
  "errorCode",
  "durationMs",
  "sessionId",
  "runId",
  "toolCallId",
  "traceId",
  "commandId",
];

it("writes one line per call with ids and outcome, and never page text, args or tokens", async () => {
  const marker = `WRITTEN-${world.secret}`;
  const post = (name: string, body: string, token = world.tokens.owner) =>
    fetch(`${bridge.url}/v1/tools/${name}`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
      body,
    });
  const before = log.lines.length;
  // A read that returns the page's text, a write that carries new text, a refused call, a bad body.
  await post("mnote_page_get", JSON.stringify(envelopeFor(world, "mnote.page.get")));
  const save = envelopeFor(world, "mnote.page.save", {
    content: [{ type: "paragraph", text: marker }],
    mode: "append",
  });
  const saved = (await (await post("mnote_page_save", JSON.stringify(save))).json()) as {
    audit: { commandId: string };
  };
  await post("mnote_page_save", JSON.stringify({ ...save, actorId: world.ids.viewer }), world.tokens.viewer);
  await post("mnote_page_save", `{"args": {"text": "${marker}"`);
  await post("mnote_page_get", JSON.stringify(envelopeFor(world, "mnote.page.get")), world.tokens.revoked);

  const transport = new StreamableHTTPClientTransport(new URL(`${bridge.url}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${world.tokens.editor}` } },
  });
  const client = new Client({ name: "log-test", version: "0" }, { jsonSchemaValidator: SCHEMA_VALIDATORS.v1 });
  await client.connect(transport);
  await client.callTool({
    name: "mnote_artifact_create_ai_note",
    arguments: { workspaceId: world.ids.ws, documentId: world.ids.page, content: marker },
    _meta: { runId: "run-log" },
  });
  await client.callTool({
    name: "mnote_page_get",
    arguments: { workspaceId: world.ids.ws, documentId: world.ids.page },
  });
  await client.close();

  const lines = log.lines.slice(before);
  const records = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
  const calls = records.filter((r) => r.msg === "tool call");
  expect(calls).toHaveLength(7);
  for (const call of calls) for (const field of FIELDS) expect(call).toHaveProperty(field);
  expect(calls.map((c) => [c.transport, c.tool, c.errorCode])).toEqual([
    ["http", "mnote.page.get", null],
    ["http", "mnote.page.save", null],
    ["http", "mnote.page.save", "mnote_tool_permission_denied"],
    ["http", "mnote.page.save", "mnote_tool_invalid_input"],
    ["http", "mnote.page.get", "mnote_tool_unauthenticated"],
    ["mcp-http", "mnote.artifact.create_ai_note", null],
    ["mcp-http", "mnote.page.get", null],
  ]);
  expect(calls[1]).toMatchObject({
    effect: "write",
    commandId: saved.audit.commandId,
    sessionId: "session_http",
    httpStatus: 200,
  });
  expect(calls[5]).toMatchObject({
    runId: "run-log",
    effect: "write",
    sessionId: transport.sessionId ?? expect.any(String),
  });

  const text = lines.join("\n");
  for (const token of Object.values(world.tokens)) expect(text).not.toContain(token);
  expect(text).not.toContain(world.secret); // neither the page text read nor the text written
  expect(text).not.toContain("First paragraph");
  expect(text).not.toMatch(/"args"|"content"|"result"|authorization/i);
});

it("the router's own failures reach the bridge's log lines, not the console", async () => {
  const broken = await createTestWorld();
  const brokenLog = captureLogger();
  const server = await startBridge({ kernel: broken.kernel, port: 0, logger: brokenLog.logger, env: {} });
  try {
    // The database goes away under a running bridge: the call is answered "unavailable", and the router says why.
    await broken.kernel.close();
    const answer = await fetch(`${server.url}/v1/tools/mnote_page_get`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${broken.tokens.owner}` },
      body: JSON.stringify(envelopeFor(broken, "mnote.page.get")),
    });
    expect(((await answer.json()) as { error: { code: string } }).error.code).toBe("mnote_tool_unavailable");
    const records = brokenLog.records();
    const failure = records.find((r) => r.msg === "tool failed unexpectedly");
    expect(failure).toMatchObject({ level: 50, tool: "mnote.page.get", err: { type: expect.any(String) } });
    expect(records.find((r) => r.msg === "audit append failed")).toMatchObject({ tool: "mnote.page.get" });
    expect(records.find((r) => r.msg === "tool call")).toMatchObject({ errorCode: "mnote_tool_unavailable" });
    expect(brokenLog.lines.join("\n")).not.toContain(broken.tokens.owner);
  } finally {
    await server.close();
  }
});

it("stdio writes a call's line after the call's answer, with the call's own duration", async () => {
  const { PassThrough, Writable } = await import("node:stream");
  const { runStdio } = await import("./mcp/stdio");
  const { createLogger } = await import("./logging");
  // One record of what left the process, in order: an answer on stdout, a call's line on stderr.
  const order: string[] = [];
  const lines: string[] = [];
  const logger = createLogger({
    destination: {
      write: (line: string) => {
        lines.push(line);
        if (line.includes('"tool call"')) order.push("line");
      },
    },
  });
  const stdin = new PassThrough();
  // Writing the tool call's answer takes a while (the client reads slowly): the line's duration is still the call's.
  const SLOW_WRITE_MS = 250;
  const stdout = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const message of chunk.toString("utf8").trim().split("\n")) {
        const id = (JSON.parse(message) as { id: number }).id;
        order.push(`answer ${id}`);
        if (id === 2) for (const until = performance.now() + SLOW_WRITE_MS; performance.now() < until;);
      }
      done();
    },
  });
  const { closed } = await runStdio({ kernel, logger, token: world.tokens.owner, rateLimit: null, stdin, stdout });
  const send = (message: object) => stdin.write(`${JSON.stringify(message)}\n`);
  send({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "order", version: "0" } },
  });
  send({ jsonrpc: "2.0", method: "notifications/initialized" });
  send({
    jsonrpc: "2.0",
    id: 2,
    method: "tools/call",
    params: { name: "mnote_page_get", arguments: { workspaceId: world.ids.ws, documentId: world.ids.page } },
  });
  await expect.poll(() => order.length, { timeout: 10_000 }).toBe(3);
  expect(order).toEqual(["answer 1", "answer 2", "line"]);
  const line = JSON.parse(lines.find((l) => l.includes('"tool call"'))!) as Record<string, unknown>;
  expect(line).toMatchObject({ transport: "mcp-stdio", tool: "mnote.page.get", ok: true });
  expect(line.durationMs).toBeLessThan(SLOW_WRITE_MS);
  stdin.end();
  await closed;
});
