import { request as httpRequest } from "node:http";
import { isWorkspaceTool, TOOL_NAMES, toolJsonSchema, toProviderName, type ToolName, TOOLS } from "@mnote/contract";
import type { SqlKernel } from "@mnote/kernel";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hermesSafeJson } from "../hermes/model-text";
import { startBridge, type RunningBridge } from "../http/server";
import {
  captureLogger,
  createTestWorld,
  routerCall,
  SAMPLE_ARGS,
  type SeededWorld,
  SCHEMA_VALIDATORS,
} from "../test-support";

let kernel: SqlKernel;
let world: SeededWorld;
let bridge: RunningBridge;
const log = captureLogger();
type Session = { client: Client; transport: StreamableHTTPClientTransport };
const open: Session[] = [];
// One session per token for the tool tests: listTools makes the SDK client compile an ajv
// validator per outputSchema (seconds for the tools' envelopes), so it is done once per client.
let ownerSession: Session;
let viewerSession: Session;

beforeAll(async () => {
  const created = await createTestWorld();
  kernel = created.kernel;
  world = created;
  bridge = await startBridge({ kernel, port: 0, logger: log.logger, rateLimit: null, env: {} });
  [ownerSession, viewerSession] = await Promise.all([connect(world.tokens.owner), connect(world.tokens.viewer)]);
});
afterAll(async () => {
  for (const { client } of open) await client.close().catch(() => undefined);
  await bridge?.close();
  await kernel?.close();
});

async function connect(token: string, headers: Record<string, string> = {}, url = `${bridge.url}/mcp`, list = true) {
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { authorization: `Bearer ${token}`, ...headers } },
  });
  const client = new Client({ name: "bridge-test", version: "0.0.1" }, { jsonSchemaValidator: SCHEMA_VALIDATORS.v1 });
  await client.connect(transport);
  // listTools first: the SDK client then validates structuredContent against each outputSchema.
  if (list) await client.listTools();
  open.push({ client, transport });
  return { client, transport };
}

/** The model's page arguments: a workspace tool names no page (issue 34). */
const pageArgs = (tool: ToolName = "mnote.page.get") => ({
  workspaceId: world.ids.ws,
  ...(isWorkspaceTool(tool) ? {} : { documentId: world.ids.page }),
});
const TRACEPARENT = (n: number) => `00-${n.toString(16).padStart(32, "a")}-00f067aa0ba902b7-01`;
let n = 0;

/**
 * Call a tool over MCP with known runtime ids, then rebuild the envelope the bridge must
 * have sent and ask the router directly: the answers must be equal.
 */
async function callAndCompare(
  session: { client: Client; transport: StreamableHTTPClientTransport },
  tool: ToolName,
  extra: Record<string, unknown>,
  who: { token: string; actorId: string; scopes: string[] },
) {
  n++;
  const runId = `run_mcp_${n}`;
  const traceId = n.toString(16).padStart(32, "a");
  const write = TOOLS[tool].kind === "write";
  const modelArguments = {
    ...pageArgs(tool),
    ...SAMPLE_ARGS[tool],
    ...(write ? { idempotencyKey: `mcp_key_${n}_${Math.random().toString(36).slice(2)}` } : {}),
    ...extra,
  };
  const result = await session.client.callTool({
    name: toProviderName(tool),
    arguments: modelArguments,
    _meta: { runId, traceparent: TRACEPARENT(n) },
  });
  const output = result.structuredContent as Record<string, any>;
  // The text is the same JSON value, written so Hermes's failure test reads a success as one.
  expect(result.content).toEqual([{ type: "text", text: hermesSafeJson(output as never) }]);
  expect(JSON.parse((result.content as Array<{ text: string }>)[0]!.text)).toEqual(output);
  // Only an outage is an MCP tool error; a refusal is an answer the model reads.
  expect(result.isError).toBe(false);
  expect(output.traceId).toBe(traceId);

  const { workspaceId, documentId, dryRun, idempotencyKey, ...args } = modelArguments as Record<string, unknown>;
  const envelope = {
    toolName: tool,
    workspaceId,
    ...(documentId === undefined ? {} : { documentId }),
    actorId: who.actorId,
    sessionId: session.transport.sessionId,
    runId,
    toolCallId: output.toolCallId,
    traceId,
    capabilityScope: who.scopes,
    ...(write ? { idempotencyKey, dryRun: dryRun ?? false } : {}),
    args,
  };
  const router = await routerCall(kernel, who.token, tool, envelope);
  expect(output).toEqual(router);
  return output;
}

describe("MCP over Streamable HTTP", () => {
  it("tools/list: exactly the seven tools, provider-safe names, contract schemas and annotations", async () => {
    const { client } = ownerSession;
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(TOOL_NAMES.map(toProviderName));
    for (const tool of tools) {
      const contract = toolJsonSchema(TOOL_NAMES.find((name) => toProviderName(name) === tool.name)!);
      expect(tool.name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
      expect(tool.description).toContain(contract.name);
      expect(tool.inputSchema.type).toBe("object");
      expect(tool.inputSchema).toEqual(contract.parameters);
      expect(tool.outputSchema).toEqual(contract.outputSchema);
      expect(tool.annotations).toEqual(contract.annotations);
    }
    const byName = Object.fromEntries(tools.map((t) => [t.name, t.annotations]));
    expect(byName.mnote_page_get?.readOnlyHint).toBe(true);
    expect(byName.mnote_page_save?.destructiveHint).toBe(true);
    expect(byName.mnote_page_update_title?.idempotentHint).toBe(true);
  });

  const owner = () => ({ token: world.tokens.owner, actorId: world.ids.owner, scopes: world.scopes });

  for (const tool of TOOL_NAMES) {
    it(`${tool}: success equals the router's envelope`, async () => {
      const output = await callAndCompare(ownerSession, tool, {}, owner());
      expect(output.ok).toBe(true);
      expect(output.toolName).toBe(tool);
    });
  }

  for (const tool of TOOL_NAMES.filter((t) => TOOLS[t].kind === "write")) {
    it(`${tool}: dry run, permission denial and idempotent replay`, async () => {
      const session = ownerSession;
      const dry = await callAndCompare(session, tool, { dryRun: true }, owner());
      expect(dry.audit.effect).toBe("dry_run");

      const denied = await callAndCompare(
        viewerSession,
        tool,
        {},
        { token: world.tokens.viewer, actorId: world.ids.viewer, scopes: world.scopes },
      );
      expect(denied.error.code).toBe("mnote_tool_permission_denied");

      // No key from the caller: every call is its own, so the same arguments twice write twice.
      const args = { ...pageArgs(tool), ...SAMPLE_ARGS[tool] };
      const first = (await session.client.callTool({ name: toProviderName(tool), arguments: args }))
        .structuredContent as any;
      const second = (await session.client.callTool({ name: toProviderName(tool), arguments: args }))
        .structuredContent as any;
      expect([first.ok, second.ok]).toEqual([true, true]);
      expect(second.audit.commandId).not.toBe(first.audit.commandId);
      // A key the caller gives in _meta names one call: its retry replays.
      const key = `meta_key_${tool}_${Math.random().toString(36).slice(2)}`;
      const keyed = (
        await session.client.callTool({ name: toProviderName(tool), arguments: args, _meta: { idempotencyKey: key } })
      ).structuredContent as any;
      const retry = (
        await session.client.callTool({ name: toProviderName(tool), arguments: args, _meta: { idempotencyKey: key } })
      ).structuredContent as any;
      expect(retry.audit.commandId).toBe(keyed.audit.commandId);
      expect(retry.result).toEqual(keyed.result);
      // mnote.page.create's records are the new page's (decision 0046).
      const audited = isWorkspaceTool(tool) ? (keyed.result.documentId as string) : world.ids.page;
      const outcomes = (await kernel.listAudit({ documentId: audited }))
        .filter((a) => a.commandId === keyed.audit.commandId)
        .map((a) => a.outcome)
        .sort();
      expect(outcomes).toEqual(["ok", "replayed"]);
    });
  }

  it("answers an unknown tool with an error envelope", async () => {
    const { client } = ownerSession;
    const result = await client.callTool({ name: "mnote_page_delete", arguments: pageArgs() });
    expect(result.isError).toBe(false);
    expect((result.structuredContent as any).error.code).toBe("mnote_tool_not_found");
  });

  it("writes and reads Markdown (decision 0026): page.save markdown, page.get format markdown", async () => {
    const { client } = ownerSession;
    const save = await client.callTool({
      name: "mnote_page_save",
      arguments: {
        ...pageArgs(),
        markdown: "Ship on **Friday** <!-- mnote:id=mcp_md -->\n\n- top\n  - nested [docs](https://example.com)\n",
        mode: "append",
      },
    });
    expect((save.structuredContent as any).ok, JSON.stringify(save.structuredContent)).toBe(true);
    const read = await client.callTool({ name: "mnote_page_get", arguments: { ...pageArgs(), format: "markdown" } });
    const markdown = (read.structuredContent as any).result.markdown as string;
    expect(markdown).toContain("Ship on **Friday** <!-- mnote:id=mcp_md -->");
    expect(markdown).toMatch(/\n {2}- nested \[docs\]\(https:\/\/example\.com\) <!-- mnote:id=\w+ -->\n/);
    expect((await kernel.getBlocks(world.ids.page)).find((block) => block.id === "mcp_md")).toEqual({
      id: "mcp_md",
      type: "paragraph",
      text: "Ship on Friday",
      marks: [{ type: "bold", start: 8, end: 14 }],
    });
    const refused = await client.callTool({
      name: "mnote_page_save",
      arguments: { ...pageArgs(), markdown: "![x](https://example.com/x.png)", mode: "append" },
    });
    expect((refused.structuredContent as any).error).toMatchObject({
      code: "mnote_tool_invalid_input",
      message: "args.markdown: line 1: an image is not supported in mnote pages",
    });
  });

  it("invalid arguments are the router's invalid_input, not a protocol error", async () => {
    const { client } = ownerSession;
    const result = await client.callTool({
      name: "mnote_page_save",
      arguments: { ...pageArgs(), content: "not blocks", actorId: "x" },
    });
    expect(result.isError).toBe(false);
    expect((result.structuredContent as any).error.code).toBe("mnote_tool_invalid_input");
  });

  it("takes traceId from the HTTP traceparent header when _meta has none, and runId defaults to the session", async () => {
    const { client, transport } = await connect(
      world.tokens.owner,
      { traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01" },
      undefined,
      false,
    );
    const result = await client.callTool({ name: "mnote_page_get", arguments: pageArgs() });
    const output = result.structuredContent as any;
    expect(output.traceId).toBe("0af7651916cd43dd8448eb211c80319c");
    const [audit] = await kernel.listAudit({ traceId: "0af7651916cd43dd8448eb211c80319c" });
    expect(audit?.identity.sessionId).toBe(transport.sessionId);
    expect(audit?.identity.runId).toBe(transport.sessionId);
  });

  it("a read-only token's scope is what the envelope carries", async () => {
    const { client } = await connect(world.tokens.ownerReadOnly, {}, undefined, false);
    const read = await client.callTool({ name: "mnote_page_get", arguments: pageArgs() });
    expect(read.isError).toBe(false);
    const write = await client.callTool({
      name: "mnote_artifact_create_ai_note",
      arguments: { ...pageArgs(), content: "n" },
    });
    expect((write.structuredContent as any).error.code).toBe("mnote_tool_permission_denied");
  });
});

/** A raw HTTP request (fetch cannot set Host). */
function raw(
  method: string,
  headers: Record<string, string>,
  body?: unknown,
): Promise<{ status: number; headers: Record<string, unknown>; text: string }> {
  const url = new URL(`${bridge.url}/mcp`);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        path: "/mcp",
        method,
        headers: { accept: "application/json, text/event-stream", ...headers },
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk) => (text += chunk));
        res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, text }));
      },
    );
    req.on("error", reject);
    if (body !== undefined) {
      const data = JSON.stringify(body);
      req.setHeader("content-type", "application/json");
      req.setHeader("content-length", Buffer.byteLength(data));
      req.end(data);
    } else req.end();
  });
}

const initialize = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "0" } },
};
const listTools = { jsonrpc: "2.0", id: 2, method: "tools/list", params: {} };

describe("/mcp security", () => {
  const host = () => new URL(bridge.url).host;

  it("refuses a request without a valid token (401)", async () => {
    expect((await raw("POST", { host: host() }, initialize)).status).toBe(401);
    const revoked = await raw("POST", { host: host(), authorization: `Bearer ${world.tokens.revoked}` }, initialize);
    expect(revoked.status).toBe(401);
    expect(revoked.headers["www-authenticate"]).toContain("Bearer");
  });

  it("refuses a foreign Host header (DNS rebinding) with 403", async () => {
    const port = new URL(bridge.url).port;
    for (const bad of [`evil.example:${port}`, "127.0.0.1:1", `attacker.localhost.example:${port}`]) {
      const answer = await raw("POST", { host: bad, authorization: `Bearer ${world.tokens.owner}` }, initialize);
      expect(answer.status, bad).toBe(403);
    }
    const good = await raw(
      "POST",
      { host: `localhost:${port}`, authorization: `Bearer ${world.tokens.owner}` },
      initialize,
    );
    expect(good.status).toBe(200);
  });

  it("refuses a foreign Origin with 403 and accepts the bridge's own", async () => {
    const auth = { host: host(), authorization: `Bearer ${world.tokens.owner}` };
    expect((await raw("POST", { ...auth, origin: "http://evil.example" }, initialize)).status).toBe(403);
    expect((await raw("POST", { ...auth, origin: `http://${host()}` }, initialize)).status).toBe(200);
  });

  it("honours MNOTE_BRIDGE_ALLOWED_HOSTS / _ORIGINS", async () => {
    const custom = await startBridge({
      kernel,
      port: 0,
      logger: log.logger,
      env: { MNOTE_BRIDGE_ALLOWED_HOSTS: "mnote.internal:4100", MNOTE_BRIDGE_ALLOWED_ORIGINS: "https://panel.example" },
    });
    try {
      const url = new URL(custom.url);
      const send = (headers: Record<string, string>) =>
        new Promise<number>((resolve, reject) => {
          const data = JSON.stringify(initialize);
          const req = httpRequest(
            {
              host: url.hostname,
              port: url.port,
              path: "/mcp",
              method: "POST",
              headers: {
                accept: "application/json, text/event-stream",
                "content-type": "application/json",
                authorization: `Bearer ${world.tokens.owner}`,
                ...headers,
              },
            },
            (res) => {
              res.resume();
              resolve(res.statusCode!);
            },
          );
          req.on("error", reject);
          req.end(data);
        });
      expect(await send({ host: url.host })).toBe(403);
      expect(await send({ host: "mnote.internal:4100" })).toBe(200);
      expect(await send({ host: "mnote.internal:4100", origin: "https://panel.example" })).toBe(200);
      expect(await send({ host: "mnote.internal:4100", origin: `http://${url.host}` })).toBe(403);
    } finally {
      await custom.close();
    }
  });

  it("binds a session to the token that opened it; the session is never authentication", async () => {
    const { transport } = await connect(world.tokens.owner, {}, undefined, false);
    const sessionId = transport.sessionId!;
    const headers = (token?: string) => ({
      host: host(),
      "mcp-session-id": sessionId,
      "mcp-protocol-version": "2025-06-18",
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    });
    expect((await raw("POST", headers(world.tokens.editor), listTools)).status).toBe(403);
    expect((await raw("POST", headers(world.tokens.ownerSecond), listTools)).status).toBe(403);
    expect((await raw("POST", headers(), listTools)).status).toBe(401);
    // Stateless (decision 0014): no server-to-client stream, no session to end.
    expect((await raw("GET", headers(world.tokens.owner))).status).toBe(405);
    expect((await raw("DELETE", headers(world.tokens.owner))).status).toBe(405);
    const own = await raw("POST", headers(world.tokens.owner), listTools);
    expect(own.status).toBe(200);
    expect(own.text).toContain("mnote_page_get");
  });

  it("answers an unknown session with 404 and a non-initialize request without session with 400", async () => {
    const auth = { host: host(), authorization: `Bearer ${world.tokens.owner}` };
    expect((await raw("POST", { ...auth, "mcp-session-id": "nope" }, listTools)).status).toBe(404);
    expect((await raw("POST", auth, listTools)).status).toBe(400);
  });

  it("refuses bodies over the limit with 413 and bad JSON with 400", async () => {
    const auth = { host: host(), authorization: `Bearer ${world.tokens.owner}` };
    const big = { ...initialize, params: { ...initialize.params, padding: "x".repeat(4 * 1024 * 1024) } };
    expect((await raw("POST", auth, big)).status).toBe(413);
  });

  it("keeps no session state: the SDK client's DELETE is answered 405 and any number of sessions costs nothing", async () => {
    const { transport } = await connect(world.tokens.owner, {}, undefined, false);
    const sessionId = transport.sessionId!;
    await transport.terminateSession(); // the SDK takes 405 as "the server does not end sessions"
    const auth = { host: host(), authorization: `Bearer ${world.tokens.owner}` };
    const after = await raw(
      "POST",
      { ...auth, "mcp-session-id": sessionId, "mcp-protocol-version": "2025-06-18" },
      listTools,
    );
    expect(after.status).toBe(200);
    // Issue 11: one token opened 1,000 sessions and locked everyone out. Sessions are now only ids.
    const opened = await Promise.all(Array.from({ length: 50 }, () => raw("POST", auth, initialize)));
    expect(opened.map((answer) => answer.status)).toEqual(opened.map(() => 200));
    expect(new Set(opened.map((answer) => answer.headers["mcp-session-id"])).size).toBe(50);
    expect((await raw("POST", { ...auth, authorization: `Bearer ${world.tokens.editor}` }, initialize)).status).toBe(
      200,
    );
  });

  it("rate-limits tools/call per token with mnote_tool_rate_limited", async () => {
    const limited = await startBridge({
      kernel,
      port: 0,
      logger: log.logger,
      rateLimit: { ratePerSecond: 0.01, burst: 2 },
      env: {},
    });
    try {
      const { client } = await connect(world.tokens.owner, {}, `${limited.url}/mcp`, false);
      const codes = [];
      for (let i = 0; i < 3; i++) {
        const result = await client.callTool({ name: "mnote_page_get", arguments: pageArgs() });
        codes.push((result.structuredContent as any).error?.code ?? "ok");
      }
      expect(codes).toEqual(["ok", "ok", "mnote_tool_rate_limited"]);
    } finally {
      await limited.close();
    }
  });
});
