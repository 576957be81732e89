import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { isWorkspaceTool, TOOL_NAMES, toolJsonSchema, toProviderName, type ToolName, TOOLS } from "@mnote/contract";
import { type SqlKernel, openKernel } from "@mnote/kernel";
import { builtBin, compiledEntry } from "@mnote/process/testing";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hermesSafeJson } from "../hermes/model-text";
import { routerCall, SAMPLE_ARGS, seedWorld, type SeededWorld, SCHEMA_VALIDATORS } from "../test-support";

const BIN = fileURLToPath(new URL("../../bin/mnote-bridge.mjs", import.meta.url));
const ENTRY = fileURLToPath(new URL("../main.ts", import.meta.url));
let dir: string;
let databaseUrl: string;
let kernel: SqlKernel;
let world: SeededWorld;
const clients: Client[] = [];
const stderr: Record<string, string> = {};

/**
 * Spawn `mnote-bridge mcp --stdio` as an MCP client would, with MNOTE_TOKEN set. `bin` is the entry compiled once
 * (`compiledEntry`, by the build's recipe); the client without a token starts `bin/mnote-bridge.mjs` itself over its
 * build (`builtBin`), as an MCP client's config does.
 */
async function spawnClient(label: string, token: string | undefined, list = true, bin?: string) {
  const env: Record<string, string> = { ...(process.env as Record<string, string>), MNOTE_DATABASE_URL: databaseUrl };
  delete env.MNOTE_TOKEN;
  if (token) env.MNOTE_TOKEN = token;
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [bin ?? (await compiledEntry(ENTRY)), "mcp", "--stdio"],
    env,
    stderr: "pipe",
  });
  stderr[label] = "";
  transport.stderr?.on("data", (chunk: Buffer) => (stderr[label] += chunk.toString("utf8")));
  const client = new Client(
    { name: "bridge-stdio-test", version: "0.0.1" },
    { jsonSchemaValidator: SCHEMA_VALIDATORS.v1 },
  );
  await client.connect(transport);
  if (list) await client.listTools();
  clients.push(client);
  return client;
}

let owner: Client;
let viewer: Client;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "mnote-bridge-stdio-"));
  databaseUrl = `file:${join(dir, "mnote.db")}`;
  kernel = await openKernel(databaseUrl);
  world = await seedWorld(kernel);
  [owner, viewer] = await Promise.all([
    spawnClient("owner", world.tokens.owner),
    spawnClient("viewer", world.tokens.viewer),
  ]);
});
afterAll(async () => {
  await Promise.allSettled(clients.map((c) => c.close()));
  await kernel?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

let n = 0;
/** Call over stdio, find the call's sessionId in the audit, then ask the router with the same envelope. */
async function callAndCompare(
  client: Client,
  tool: ToolName,
  extra: Record<string, unknown>,
  who: { token: string; actorId: string },
) {
  n++;
  const traceId = `${n.toString(16).padStart(32, "b")}`;
  const write = TOOLS[tool].kind === "write";
  const modelArguments: Record<string, unknown> = {
    workspaceId: world.ids.ws,
    // A workspace tool names no page (issue 34).
    ...(isWorkspaceTool(tool) ? {} : { documentId: world.ids.page }),
    ...SAMPLE_ARGS[tool],
    ...(write ? { idempotencyKey: `stdio_key_${n}_${Math.random().toString(36).slice(2)}` } : {}),
    ...extra,
  };
  const result = await client.callTool({ name: toProviderName(tool), arguments: modelArguments, _meta: { traceId } });
  const output = result.structuredContent as Record<string, any>;
  // The text is the same JSON value, written so Hermes's failure test reads a success as one.
  expect(result.content).toEqual([{ type: "text", text: hermesSafeJson(output as never) }]);
  expect(JSON.parse((result.content as Array<{ text: string }>)[0]!.text)).toEqual(output);
  // Only an outage is an MCP tool error; a refusal is an answer the model reads.
  expect(result.isError).toBe(false);
  expect(output.traceId).toBe(traceId);
  const [audit] = await kernel.listAudit({ traceId });
  expect(audit?.identity.sessionId).toMatch(/^stdio_/);
  expect(audit?.identity.runId).toBe(audit?.identity.sessionId);
  const { workspaceId, documentId, dryRun, idempotencyKey, ...args } = modelArguments;
  const envelope = {
    toolName: tool,
    workspaceId,
    ...(documentId === undefined ? {} : { documentId }),
    actorId: who.actorId,
    sessionId: audit!.identity.sessionId,
    runId: audit!.identity.runId,
    toolCallId: output.toolCallId,
    traceId,
    capabilityScope: world.scopes,
    ...(write ? { idempotencyKey, dryRun: dryRun ?? false } : {}),
    args,
  };
  expect(output).toEqual(await routerCall(kernel, who.token, tool, envelope));
  return output;
}

describe("MCP over stdio (mnote-bridge mcp --stdio)", () => {
  it("tools/list: the seven tools with the contract's schemas", async () => {
    const { tools } = await owner.listTools();
    expect(tools.map((t) => t.name)).toEqual(TOOL_NAMES.map(toProviderName));
    for (const tool of tools) {
      const contract = toolJsonSchema(TOOL_NAMES.find((name) => toProviderName(name) === tool.name)!);
      expect(tool.name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
      expect(tool.inputSchema).toEqual(contract.parameters);
      expect(tool.outputSchema).toEqual(contract.outputSchema);
      expect(tool.annotations).toEqual(contract.annotations);
    }
  });

  for (const tool of TOOL_NAMES) {
    it(`${tool}: success equals the router's envelope`, async () => {
      const output = await callAndCompare(owner, tool, {}, { token: world.tokens.owner, actorId: world.ids.owner });
      expect(output.ok).toBe(true);
    });
  }

  for (const tool of TOOL_NAMES.filter((t) => TOOLS[t].kind === "write")) {
    it(`${tool}: dry run, permission denial, the same arguments twice are two calls`, async () => {
      const dry = await callAndCompare(
        owner,
        tool,
        { dryRun: true },
        { token: world.tokens.owner, actorId: world.ids.owner },
      );
      expect(dry.audit.effect).toBe("dry_run");
      const denied = await callAndCompare(viewer, tool, {}, { token: world.tokens.viewer, actorId: world.ids.viewer });
      expect(denied.error.code).toBe("mnote_tool_permission_denied");
      const args = {
        workspaceId: world.ids.ws,
        ...(isWorkspaceTool(tool) ? {} : { documentId: world.ids.page }),
        ...SAMPLE_ARGS[tool],
      };
      const first = (await owner.callTool({ name: toProviderName(tool), arguments: args })).structuredContent as any;
      const again = (await owner.callTool({ name: toProviderName(tool), arguments: args })).structuredContent as any;
      expect([first.ok, again.ok]).toEqual([true, true]);
      expect(again.audit.commandId).not.toBe(first.audit.commandId);
    });
  }

  it("without MNOTE_TOKEN every call is the router's mnote_tool_unauthenticated", async () => {
    const anonymous = await spawnClient("anonymous", undefined, false, await builtBin(BIN, ENTRY, "mnote-bridge.mjs"));
    const result = await anonymous.callTool({
      name: "mnote_page_get",
      arguments: { workspaceId: world.ids.ws, documentId: world.ids.page },
    });
    expect(result.isError).toBe(false);
    expect((result.structuredContent as any).error.code).toBe("mnote_tool_unauthenticated");
    expect(stderr.anonymous).toContain("MNOTE_TOKEN is missing");
  });

  it("reads who MNOTE_TOKEN is once, and still refuses it on the first call after it is revoked", async () => {
    const { token, record } = await kernel.admin.createToken({
      userId: world.ids.owner,
      holder: "agent",
      scopes: world.scopes,
      label: "revoked while connected",
    });
    const client = await spawnClient("revokedLater", token, false);
    const call = async () =>
      (
        await client.callTool({
          name: "mnote_page_get",
          arguments: { workspaceId: world.ids.ws, documentId: world.ids.page },
        })
      ).structuredContent as any;
    const before = await call();
    expect(before.ok).toBe(true);
    expect(before.audit.documentId).toBe(world.ids.page);
    await kernel.admin.revokeToken(record.id);
    const after = await call();
    expect(after.ok).toBe(false);
    expect(after.error.code).toBe("mnote_tool_unauthenticated");
  });

  it("logs JSON lines to stderr only, with no token or page text", async () => {
    // Whole lines only: a line may still be arriving.
    const callLines = () =>
      stderr
        .owner!.slice(0, stderr.owner!.lastIndexOf("\n") + 1)
        .split("\n")
        .filter((line) => line !== "")
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .filter((l) => l.msg === "tool call");
    const before = callLines().length;
    await owner.callTool({
      name: "mnote_page_get",
      arguments: { workspaceId: world.ids.ws, documentId: world.ids.page },
    });
    // The call's line follows its answer (logToolCall's afterAnswer).
    await expect.poll(() => callLines().length, { timeout: 10_000 }).toBeGreaterThan(before);
    const calls = callLines();
    expect(calls.every((l) => l.transport === "mcp-stdio")).toBe(true);
    for (const secret of [world.tokens.owner, world.secret]) expect(stderr.owner).not.toContain(secret);
  });
});
