import { TOOL_ERROR_MESSAGES as M, toProviderName } from "@mnote/contract";
import type { SqlKernel } from "@mnote/kernel";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  HermesMcpBreaker,
  hermesDetectsFailure,
  hermesMcpHandlerResult,
  type McpCallResult,
} from "./hermes/hermes-wire";
import { type RunningBridge, startBridge } from "./http/server";
import {
  captureLogger,
  createTestWorld,
  envelopeFor,
  rejectInPanel,
  type SeededWorld,
  SCHEMA_VALIDATORS,
} from "./test-support";

/**
 * Issue 22 at the bridge's doors: a person rejects a held agent write with a reason, and the agent's retry of
 * that call (same key) answers mnote_tool_rejected with the reason and who decided — over HTTP and MCP, in the
 * standard and the Hermes result forms. For Hermes (fixtures in ./hermes/hermes-wire.ts, from its own code) it
 * is a failure the model reads, and never a strike of its MCP breaker.
 */
let kernel: SqlKernel;
let world: SeededWorld;
let bridge: RunningBridge;
const log = captureLogger();
const clients: Client[] = [];
const REASON = "Keep the heading as it is; fix only the typo";

beforeAll(async () => {
  const created = await createTestWorld();
  kernel = created.kernel;
  world = created;
  bridge = await startBridge({ kernel, port: 0, host: "127.0.0.1", logger: log.logger, rateLimit: null, env: {} });
}, 30_000);
afterAll(async () => {
  for (const client of clients) await client.close().catch(() => undefined);
  await bridge?.close();
  await kernel?.close();
});

const held = () => ({ workspaceId: world.ids.heldWs, documentId: world.ids.heldPage });
let n = 0;
/** A model's flat arguments for a held title change with its own key. */
const titleCall = () => ({ ...held(), title: `Agent title ${++n}`, idempotencyKey: `model_key_${n}` });

async function post(envelope: Record<string, unknown>, form?: "hermes") {
  const response = await fetch(`${bridge.url}/v1/tools/mnote_page_update_title`, {
    method: "POST",
    headers: {
      // No pooled socket left behind for the MCP tests' fetch to reuse after the server closed it.
      connection: "close",
      "content-type": "application/json",
      authorization: `Bearer ${world.tokens.owner}`,
      ...(form ? { "x-mnote-result-form": form } : {}),
    },
    body: JSON.stringify(envelope),
  });
  const text = await response.text();
  return { status: response.status, text, json: JSON.parse(text) as Record<string, any> };
}

async function connect(form: "hermes" | "standard") {
  // A fresh connection per request: the SDK's validator compile in listTools can outlast the server's keep-alive
  // on a busy machine, and a pooled socket the server closed meanwhile resets the next call.
  const headers: Record<string, string> = { authorization: `Bearer ${world.tokens.owner}`, connection: "close" };
  if (form === "hermes") headers["x-mnote-result-form"] = "hermes";
  const client = new Client({ name: "rejected-test", version: "0.0.1" }, { jsonSchemaValidator: SCHEMA_VALIDATORS.v1 });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${bridge.url}/mcp`), { requestInit: { headers } }));
  clients.push(client);
  return client;
}

describe("mnote_tool_rejected at every bridge door", () => {
  for (const form of [undefined, "hermes"] as const) {
    it(`HTTP (${form ?? "standard"} form): held, rejected with a reason, the retry names who and why`, async () => {
      const { title, idempotencyKey, ...page } = titleCall();
      const args = envelopeFor(world, "mnote.page.update_title", { title }, { ...page, idempotencyKey });
      const first = await post(args, form);
      expect(first.json.error.code).toBe("mnote_tool_approval_required");
      expect(first.json.error.message).toContain(idempotencyKey);
      await rejectInPanel(kernel, world.tokens.ownerPerson, held(), REASON);
      const retry = await post(args, form);
      expect(retry.status).toBe(409);
      expect(retry.json).toMatchObject({ ok: false, result: null, error: { code: "mnote_tool_rejected" } });
      expect(retry.json.error.message).toBe(M.rejected("owner", REASON));
      if (form === "hermes") expect(hermesDetectsFailure(retry.text)).toBe(true);
      expect((await kernel.getPage(world.ids.heldPage))!.title).toBe("Held page");
    });
  }

  for (const form of ["hermes", "standard"] as const) {
    it(
      `MCP (${form} form): a failure Hermes's classifier reads, not a strike of its breaker`,
      { timeout: 60_000 },
      async () => {
        const client = await connect(form);
        if (form === "standard") await client.listTools(); // the SDK then checks structuredContent against outputSchema
        const breaker = new HermesMcpBreaker();
        const call = (args: Record<string, unknown>) =>
          client.callTool({
            name: toProviderName("mnote.page.update_title"),
            arguments: args,
          }) as Promise<McpCallResult>;
        const args = titleCall();
        await breaker.call(() => call(args));
        await rejectInPanel(kernel, world.tokens.ownerPerson, held(), REASON);
        // Three retries in a row: each is the rejection, none opens the breaker.
        for (let i = 0; i < 3; i++) {
          let raw: McpCallResult | undefined;
          const handed = await breaker.call(async () => (raw = await call(args)));
          expect(raw!.isError).toBe(false);
          expect(JSON.parse(handed)).not.toHaveProperty("error");
          const envelope = (raw!.structuredContent ?? JSON.parse(raw!.content![0]!.text!)) as Record<string, any>;
          expect(envelope.error).toEqual({ code: "mnote_tool_rejected", message: M.rejected("owner", REASON) });
          // The standard form reaches Hermes as text inside {"result": …}: only the Hermes form is classified by meaning.
          if (form === "hermes") expect(hermesDetectsFailure(hermesMcpHandlerResult(raw!))).toBe(true);
        }
        expect(breaker.open).toBe(false);
      },
    );
  }
});
