import { toolJsonSchema, toProviderName, TOOL_NAMES, type ToolName } from "@mnote/contract";
import type { SqlKernel } from "@mnote/kernel";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  HermesMcpBreaker,
  hermesDetectsFailure,
  hermesMcpHandlerResult,
  type McpCallResult,
} from "../hermes/hermes-wire";
import { startBridge, type RunningBridge } from "../http/server";
import {
  captureLogger,
  createTestWorld,
  modelPageArgs,
  routerCall,
  SAMPLE_ARGS,
  type SeededWorld,
  SCHEMA_VALIDATORS,
} from "../test-support";
import { createMcpServer } from "./server";

/**
 * The MCP door as Hermes Agent uses it: its handler's result shape and its breaker
 * (fixtures in ../hermes/hermes-wire.ts), driven by the real MCP SDK client over the
 * real bridge, with the Hermes result form (X-Mnote-Result-Form: hermes, or
 * MNOTE_RESULT_FORM=hermes for stdio) and without it.
 */
let kernel: SqlKernel;
let world: SeededWorld;
let bridge: RunningBridge;
let approvalPage: { ws: string; page: string };
const log = captureLogger();
const clients: Client[] = [];

beforeAll(async () => {
  const created = await createTestWorld();
  kernel = created.kernel;
  world = created;
  bridge = await startBridge({ kernel, port: 0, logger: log.logger, rateLimit: null, env: {} });
  // A workspace like the demo's: agent writes wait for a person's approval.
  const ws = (await kernel.admin.createWorkspace({ name: "Held", ownerId: world.ids.owner, approvalRequired: true }))
    .id;
  const page = (await kernel.admin.createPage({ workspaceId: ws, title: "Held page", createdBy: world.ids.owner })).id;
  approvalPage = { ws, page };
});
afterAll(async () => {
  for (const client of clients) await client.close().catch(() => undefined);
  await bridge?.close();
  await kernel?.close();
});

async function connect(form: "hermes" | "standard", token = world.tokens.owner, list = true) {
  const headers: Record<string, string> = { authorization: `Bearer ${token}` };
  if (form === "hermes") headers["x-mnote-result-form"] = "hermes";
  const transport = new StreamableHTTPClientTransport(new URL(`${bridge.url}/mcp`), { requestInit: { headers } });
  const client = new Client(
    { name: "hermes-form-test", version: "0.0.1" },
    { jsonSchemaValidator: SCHEMA_VALIDATORS.v1 },
  );
  await client.connect(transport);
  // listTools first, as Hermes does: the SDK client then checks structuredContent against each outputSchema.
  if (list) await client.listTools();
  clients.push(client);
  return client;
}

const pageArgs = (tool?: ToolName) => modelPageArgs(world, tool);
const call = (client: Client, tool: string, args: Record<string, unknown>) =>
  client.callTool({ name: tool, arguments: args }) as Promise<McpCallResult & Record<string, unknown>>;
/** The envelope in a Hermes-form result, whichever part carries it. */
const HERMES_WRAPPER = '{"result": ""}';
const envelopeOf = (result: McpCallResult) =>
  (result.structuredContent ?? JSON.parse(result.content![0]!.text!)) as Record<string, any>;

describe("tools/list", () => {
  // The SDK client compiles a validator per outputSchema on listTools: seconds on a busy machine.
  it("declares outputSchema in the standard form only", { timeout: 120_000 }, async () => {
    const [standard, hermes] = await Promise.all([
      connect("standard", undefined, false),
      connect("hermes", undefined, false),
    ]);
    const [a, b] = await Promise.all([standard.listTools(), hermes.listTools()]);
    for (const tool of a.tools)
      expect(tool.outputSchema).toEqual(
        toolJsonSchema(TOOL_NAMES.find((t) => toProviderName(t) === tool.name)!).outputSchema,
      );
    for (const tool of b.tools) expect(tool).not.toHaveProperty("outputSchema");
    expect(b.tools.map((t) => [t.name, t.inputSchema])).toEqual(a.tools.map((t) => [t.name, t.inputSchema]));
  });
});

describe("Hermes form: what Hermes's MCP handler hands the model", () => {
  for (const tool of TOOL_NAMES) {
    it(`${tool}: a success is the envelope once, read as a success, at most 1.2x the compact envelope plus Hermes's wrapper`, async () => {
      const client = await connect("hermes");
      const result = await call(client, toProviderName(tool), { ...pageArgs(tool), ...SAMPLE_ARGS[tool] });
      expect(result.isError).toBe(false);
      expect(result.structuredContent).toBeUndefined();
      const output = envelopeOf(result);
      expect(output.ok).toBe(true);
      const handed = hermesMcpHandlerResult(result);
      expect(hermesDetectsFailure(handed)).toBe(false);
      expect(JSON.parse(JSON.parse(handed).result)).toEqual(output);
      // Hermes wraps every text result as {"result": "<text>"}: 14 characters for any result, plus a
      // backslash per quote of the text. The bound is on what depends on our answer.
      expect((handed.length - HERMES_WRAPPER.length) / JSON.stringify(output).length).toBeLessThanOrEqual(1.2);
    });
  }

  it("a refusal is the envelope once as an object: a failure for Hermes's classifier, not for its breaker", async () => {
    const client = await connect("hermes");
    const result = await call(client, "mnote_page_update_title", { ...pageArgs(), title: "x", baseRevision: 0 });
    expect(result.isError).toBe(false);
    expect(result.content).toEqual([]);
    expect(envelopeOf(result).error.code).toBe("mnote_tool_conflict");
    const handed = hermesMcpHandlerResult(result);
    expect(hermesDetectsFailure(handed)).toBe(true);
    expect(JSON.parse(handed)).not.toHaveProperty("error");
  });

  it(
    "the standard form reaches Hermes twice (text and structuredContent): why the Hermes form exists",
    { timeout: 120_000 },
    async () => {
      const client = await connect("standard");
      const result = await call(client, "mnote_page_get", pageArgs());
      const handed = hermesMcpHandlerResult(result);
      expect(handed.length / JSON.stringify(result.structuredContent).length).toBeGreaterThan(2);
    },
  );
});

describe("Hermes's breaker (tools/mcp_tool.py) stays closed through refusals", () => {
  for (const form of ["hermes", "standard"] as const) {
    it(`${form} form: five refusals in a row, then a valid call works`, { timeout: 120_000 }, async () => {
      const client = await connect(form);
      const breaker = new HermesMcpBreaker();
      const held = { workspaceId: approvalPage.ws, documentId: approvalPage.page };
      const refusals: Array<[string, Record<string, unknown>, string]> = [
        ["mnote_page_update_title", { ...held, title: "held" }, "mnote_tool_approval_required"],
        ["mnote_page_update_title", { ...held, title: "held again" }, "mnote_tool_approval_required"],
        ["mnote_page_update_title", { ...pageArgs(), title: "x", baseRevision: 0 }, "mnote_tool_conflict"],
        ["mnote_page_delete", pageArgs(), "mnote_tool_not_found"],
        ["mnote_page_save", { ...pageArgs(), content: "not blocks" }, "mnote_tool_invalid_input"],
      ];
      for (const [tool, args, code] of refusals) {
        const handed = await breaker.call(async () => {
          const result = await call(client, tool, args);
          expect(envelopeOf(result).error.code).toBe(code);
          return result;
        });
        expect(JSON.parse(handed)).not.toHaveProperty("error");
      }
      expect(breaker.open).toBe(false);
      const handed = await breaker.call(() => call(client, "mnote_page_get", pageArgs()));
      expect(JSON.parse(handed)).toHaveProperty("result");
      if (form === "hermes") expect(hermesDetectsFailure(handed)).toBe(false);
    });
  }

  it("the fixture does open after three tool errors, as Hermes's breaker does", async () => {
    const breaker = new HermesMcpBreaker();
    const outage: McpCallResult = { content: [{ type: "text", text: "{}" }], isError: true };
    for (let i = 0; i < 3; i++) await breaker.call(async () => outage);
    expect(breaker.open).toBe(true);
  });
});

describe("calls without a caller key are never one call", () => {
  it("toggling an option true → false → true ends true", async () => {
    const client = await connect("hermes");
    for (const wideLayout of [true, false, true]) {
      const result = await call(client, "mnote_page_update_options", { ...pageArgs(), options: { wideLayout } });
      expect(envelopeOf(result).ok).toBe(true);
    }
    expect((await kernel.getPage(world.ids.page))!.options.wideLayout).toBe(true);
  });

  it("the same AI note asked for twice exists twice", async () => {
    const client = await connect("hermes");
    const content = `note ${Math.random().toString(36).slice(2)}`;
    const first = envelopeOf(await call(client, "mnote_artifact_create_ai_note", { ...pageArgs(), content }));
    const second = envelopeOf(await call(client, "mnote_artifact_create_ai_note", { ...pageArgs(), content }));
    expect(second.audit.commandId).not.toBe(first.audit.commandId);
    const { nodes } = await kernel.listArtifacts(world.ids.page);
    expect(nodes.filter((node) => node.kind === "ai_note" && node.content === content)).toHaveLength(2);
  });
});

describe("_caller: Hermes's ids in the audit, and a retry of one Hermes tool call writes once", () => {
  const hermesIds = (toolCallId: string, runId = "20261130_190000_abc:20261130_190000_abc:1a2b3c4d") => ({
    sessionId: "20261130_190000_abc",
    runId,
    toolCallId,
  });

  it("puts the caller's session, run and tool-call ids in the envelope and every audit row", async () => {
    const client = await connect("hermes");
    const ids = hermesIds(`call_${Math.random().toString(36).slice(2)}`);
    const read = envelopeOf(await call(client, "mnote_page_get", { ...pageArgs(), _caller: ids }));
    expect(read.toolCallId).toBe(ids.toolCallId);
    const write = envelopeOf(
      await call(client, "mnote_page_update_title", {
        ...pageArgs(),
        title: "From Hermes",
        _caller: { ...ids, toolCallId: `${ids.toolCallId}_w` },
      }),
    );
    expect(write.ok).toBe(true);
    const rows = await kernel.listAudit({ runId: ids.runId });
    expect(rows.length).toBeGreaterThanOrEqual(2);
    for (const row of rows) {
      expect(row.identity.sessionId).toBe(ids.sessionId);
      expect(row.identity.runId).toBe(ids.runId);
    }
    expect(rows.map((row) => row.identity.toolCallId).sort()).toEqual([ids.toolCallId, `${ids.toolCallId}_w`].sort());
  });

  it("the same tool-call id replays in its turn and writes again in another turn (Hermes reuses ids across turns)", async () => {
    const client = await connect("hermes");
    const content = `note ${Math.random().toString(36).slice(2)}`;
    const ids = hermesIds("call_0f1e2d3c4b5a");
    const args = { ...pageArgs(), content };
    const first = envelopeOf(await call(client, "mnote_artifact_create_ai_note", { ...args, _caller: ids }));
    const retry = envelopeOf(await call(client, "mnote_artifact_create_ai_note", { ...args, _caller: ids }));
    const nextTurn = envelopeOf(
      await call(client, "mnote_artifact_create_ai_note", { ...args, _caller: hermesIds(ids.toolCallId, "next-turn") }),
    );
    expect(retry.audit.commandId).toBe(first.audit.commandId);
    expect(nextTurn.audit.commandId).not.toBe(first.audit.commandId);
    const { nodes } = await kernel.listArtifacts(world.ids.page);
    expect(nodes.filter((node) => node.content === content)).toHaveLength(2);
  });

  it.each([
    ["not an object", "call_1", "_caller"],
    ["an unknown field", { toolCallId: "call_1", turn: "x" }, "_caller"],
    ["an empty id", { toolCallId: "" }, "_caller.toolCallId"],
    ["an id over 256 characters", { sessionId: "s".repeat(257) }, "_caller.sessionId"],
    ["a control character", { runId: "run\n1" }, "_caller.runId"],
  ])("refuses %s as invalid input, and writes nothing", async (_what, value, where) => {
    const client = await connect("hermes");
    const before = await kernel.admin.tableSnapshot();
    const result = await call(client, "mnote_page_update_title", { ...pageArgs(), title: "never", _caller: value });
    const output = envelopeOf(result);
    expect(result.isError).toBe(false);
    expect(output.error.code).toBe("mnote_tool_invalid_input");
    expect(output.error.message.startsWith(`${where}:`)).toBe(true);
    const after = await kernel.admin.tableSnapshot();
    expect(after.commands).toEqual(before.commands);
    expect(after.pages).toEqual(before.pages);
  });
});

describe("stdio's result form (MNOTE_RESULT_FORM) and an outage", () => {
  it("a server made with resultForm hermes answers in the Hermes form; an outage is the one MCP tool error", async () => {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const server = createMcpServer({
      kernel,
      logger: log.logger,
      authorization: `Bearer ${world.tokens.owner}`,
      sessionId: "stdio_test",
      resultForm: "hermes",
    });
    await server.connect(serverSide);
    const client = new Client(
      { name: "stdio-form-test", version: "0.0.1" },
      { jsonSchemaValidator: SCHEMA_VALIDATORS.v1 },
    );
    await client.connect(clientSide);
    clients.push(client);
    const { tools } = await client.listTools();
    for (const tool of tools) expect(tool).not.toHaveProperty("outputSchema");
    const ok = await call(client, "mnote_page_get", pageArgs());
    expect(ok.structuredContent).toBeUndefined();
    expect(envelopeOf(ok)).toEqual(
      await routerCall(kernel, world.tokens.owner, "mnote.page.get", {
        ...pageArgs(),
        toolName: "mnote.page.get",
        actorId: world.ids.owner,
        sessionId: "stdio_test",
        runId: "stdio_test",
        toolCallId: envelopeOf(ok).toolCallId,
        traceId: envelopeOf(ok).traceId,
        capabilityScope: world.scopes,
        args: {},
      }),
    );

    // A broken kernel: the router answers mnote_tool_unavailable, the only isError result.
    const broken = createMcpServer({
      kernel: new Proxy(kernel, {
        get: (target, property) => {
          if (property === "getCallFacts") return () => Promise.reject(new Error("database down"));
          const value = Reflect.get(target, property);
          return typeof value === "function" ? value.bind(target) : value;
        },
      }),
      logger: log.logger,
      authorization: `Bearer ${world.tokens.owner}`,
      resultForm: "hermes",
    });
    const [brokenClientSide, brokenServerSide] = InMemoryTransport.createLinkedPair();
    await broken.connect(brokenServerSide);
    const brokenClient = new Client(
      { name: "stdio-form-test", version: "0.0.1" },
      { jsonSchemaValidator: SCHEMA_VALIDATORS.v1 },
    );
    await brokenClient.connect(brokenClientSide);
    clients.push(brokenClient);
    const down = await call(brokenClient, "mnote_page_get", pageArgs());
    expect(down.isError).toBe(true);
    expect(envelopeOf(down).error.code).toBe("mnote_tool_unavailable");
    expect(JSON.parse(hermesMcpHandlerResult(down))).toHaveProperty("error");
  });
});
