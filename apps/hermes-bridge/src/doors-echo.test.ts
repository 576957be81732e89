import { echoEnvelopeIds, type OutputEnvelope } from "@mnote/contract";
import type { SqlKernel } from "@mnote/kernel";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bridgeFailure } from "./bridge-failure";
import { type RunningBridge, startBridge } from "./http/server";
import { captureLogger, createTestWorld, routerCall, type SeededWorld, SCHEMA_VALIDATORS } from "./test-support";

/**
 * One rule for the caller's ids a refused call repeats (packages/contract/src/echo.ts): the router, the
 * door for unknown tool names, the bridge's own refusals, its HTTP endpoint, MCP and the log line all
 * echo an id only when the contract's schema for that field accepts it. Before, the unknown-tool door
 * echoed ids of up to 256 characters where the envelope allows 128, and only the bridge checked that
 * they were printable.
 */
let kernel: SqlKernel;
let world: SeededWorld;
let bridge: RunningBridge;
let client: Client;
const log = captureLogger();

beforeAll(async () => {
  const created = await createTestWorld();
  kernel = created.kernel;
  world = created;
  bridge = await startBridge({ kernel, port: 0, host: "127.0.0.1", logger: log.logger, rateLimit: null, env: {} });
  client = new Client({ name: "doors-echo-test", version: "0.0.1" }, { jsonSchemaValidator: SCHEMA_VALIDATORS.v1 });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${bridge.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${world.tokens.owner}` } },
    }),
  );
}, 30_000);
afterAll(async () => {
  await client?.close().catch(() => undefined);
  await bridge?.close();
  await kernel?.close();
});

/** At each field's bound (kept) or one past it, or unprintable (dropped). */
const CLAIMED = {
  workspaceId: "w".repeat(128),
  documentId: "d".repeat(129),
  toolCallId: "c".repeat(256),
  traceId: "t\nforged log line",
  sessionId: "s".repeat(257),
  runId: "r\u0000",
};
const EXPECTED = { workspaceId: "w".repeat(128), documentId: null, toolCallId: "c".repeat(256), traceId: null };

/** A page.get envelope the router refuses at validation (its ids are too long), so only the echo answers for them. */
const hostileEnvelope = (toolName: string) => ({
  toolName,
  actorId: world.ids.owner,
  capabilityScope: world.scopes,
  args: {},
  ...CLAIMED,
});

const idsOf = (output: OutputEnvelope) => ({
  workspaceId: output.audit.workspaceId,
  documentId: output.audit.documentId,
  toolCallId: output.toolCallId,
  traceId: output.traceId,
});

async function httpCall(name: string, body: unknown) {
  const response = await fetch(`${bridge.url}/v1/tools/${name}`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${world.tokens.owner}` },
    body: JSON.stringify(body),
  });
  return (await response.json()) as OutputEnvelope;
}

describe("every door echoes the caller's ids by the contract's rule", () => {
  it("the contract's echo of the claimed ids", () => {
    expect(echoEnvelopeIds(CLAIMED)).toEqual(EXPECTED);
  });

  it.each([
    ["a contract tool with an invalid envelope", "mnote.page.get", "mnote_tool_invalid_input"],
    ["a tool that does not exist", "mnote.page.delete", "mnote_tool_not_found"],
  ])("%s: the router and the HTTP endpoint echo the same ids", async (_case, name, code) => {
    const router = await routerCall(kernel, world.tokens.owner, name, hostileEnvelope(name));
    const http = await httpCall(name, hostileEnvelope(name));
    expect(router.error?.code).toBe(code);
    expect(http).toEqual(router);
    expect(idsOf(router)).toEqual(EXPECTED);
  });

  it("the bridge's own refusal (before the router) echoes the same ids", () => {
    const refused = bridgeFailure(
      "mnote_page_get",
      hostileEnvelope("mnote.page.get"),
      "mnote_tool_rate_limited",
      "slow down",
    );
    expect(refused.toolName).toBe("mnote.page.get");
    expect(idsOf(refused)).toEqual(EXPECTED);
  });

  it("MCP: the page ids from the model's arguments and the call id from _caller, by the same rule", async () => {
    for (const name of ["mnote_page_get", "mnote_page_delete"]) {
      const result = await client.callTool({
        name,
        arguments: {
          workspaceId: CLAIMED.workspaceId,
          documentId: CLAIMED.documentId,
          _caller: { toolCallId: CLAIMED.toolCallId },
        },
      });
      const output = result.structuredContent as OutputEnvelope;
      expect(output.ok).toBe(false);
      expect(output.toolCallId).toBe(EXPECTED.toolCallId);
      expect(output.audit).toMatchObject({ workspaceId: EXPECTED.workspaceId, documentId: EXPECTED.documentId });
    }
  });

  it("the log line keeps the same ids, and never the unprintable ones", async () => {
    log.lines.length = 0;
    await httpCall("mnote.page.get", hostileEnvelope("mnote.page.get"));
    const [line] = log.records().filter((record) => record.msg === "tool call");
    expect(line).toMatchObject({ toolCallId: EXPECTED.toolCallId, traceId: null, sessionId: null, runId: null });
  });

  it("an unknown tool's audit record names nobody: the claimed ids are kept as unverified claims only", async () => {
    await routerCall(kernel, null, "mnote.page.delete", {
      ...hostileEnvelope("mnote.page.delete"),
      documentId: world.ids.page,
      workspaceId: world.ids.ws,
    });
    const [record] = await kernel.listAudit({ limit: 1 });
    expect(record).toMatchObject({
      errorCode: "mnote_tool_not_found",
      identity: { toolName: "mnote.page.delete", actorId: "", documentId: "" },
    });
    expect(record!.detail).toEqual({
      unverifiedClaims: {
        actorId: world.ids.owner,
        workspaceId: world.ids.ws,
        documentId: world.ids.page,
        toolCallId: CLAIMED.toolCallId,
      },
    });
    // Not in the page's trail: a forged call to a tool that does not exist cannot write into it.
    expect(
      (await kernel.listAudit({ documentId: world.ids.page })).some((r) => r.errorCode === "mnote_tool_not_found"),
    ).toBe(false);
  });
});
