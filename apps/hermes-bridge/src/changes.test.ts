import { TOOL_ERROR_MESSAGES as M, toProviderName } from "@mnote/contract";
import type { SqlKernel } from "@mnote/kernel";
import { createCaller, createToolsContext } from "@mnote/tools";
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
import { captureLogger, createTestWorld, type SeededWorld, SCHEMA_VALIDATORS } from "./test-support";

/**
 * Issue 32 item 4 at the bridge's MCP door, as Hermes's plugin retries a held call with the same key: the retry
 * answers exactly what happened to it — applied in part (which changes, which left out and why), applied with a
 * person's edits (the final blocks), rejected, conflicted (which blocks to read again) — and another payload under
 * the key is an idempotency conflict. Standard form: the SDK checks each structuredContent against the tool's
 * outputSchema (listTools first). Hermes form: what its handler hands the model, and its breaker never opens on
 * a person's decision (fixtures from Hermes's own code in ./hermes/hermes-wire.ts).
 */
let kernel: SqlKernel;
let world: SeededWorld;
let bridge: RunningBridge;
const log = captureLogger();
const clients: Client[] = [];

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

let pages = 0;
/** A fresh page in the workspace that holds agent writes: p1 and p2 under a heading. */
async function heldPage() {
  const id = `changes_${++pages}_${world.ids.heldPage}`;
  await kernel.admin.createPage({
    id,
    workspaceId: world.ids.heldWs,
    title: "Held changes",
    createdBy: world.ids.owner,
    blocks: [
      { id: "h1", type: "heading", level: 1, text: "Rollout" },
      { id: "p1", type: "paragraph", text: "First paragraph" },
      { id: "p2", type: "paragraph", text: "Second paragraph" },
    ],
  });
  const ref = { workspaceId: world.ids.heldWs, documentId: id };
  const panel = createCaller(
    createToolsContext({ kernel, authorization: `Bearer ${world.tokens.ownerPerson}`, door: "panel" }),
  ).panel;
  const pending = async () => (await panel.proposals.list(ref)).find((p) => p.status === "pending")!.id;
  return { ref, panel, pending };
}

async function connect(form: "hermes" | "standard") {
  const headers: Record<string, string> = { authorization: `Bearer ${world.tokens.owner}`, connection: "close" };
  if (form === "hermes") headers["x-mnote-result-form"] = "hermes";
  const client = new Client({ name: "changes-test", version: "0.0.1" }, { jsonSchemaValidator: SCHEMA_VALIDATORS.v1 });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${bridge.url}/mcp`), { requestInit: { headers } }));
  clients.push(client);
  if (form === "standard") await client.listTools(); // the SDK then checks structuredContent against outputSchema
  return client;
}

const envelopeOf = (raw: McpCallResult) =>
  (raw.structuredContent ?? JSON.parse(raw.content![0]!.text!)) as Record<string, any>;

const EDIT = (key: string, ref: { workspaceId: string; documentId: string }) => ({
  ...ref,
  idempotencyKey: key,
  operations: [
    { op: "replace", blockId: "p1", text: "P1 by the agent" },
    { op: "insert", after: "p2", blocks: [{ id: "a1", type: "paragraph", text: "Alpha line" }] },
  ],
});

for (const form of ["standard", "hermes"] as const) {
  describe(`the retry of a held call hears what happened (MCP, ${form} form)`, { timeout: 60_000 }, () => {
    let key = 0;
    const run = async (decide: (page: Awaited<ReturnType<typeof heldPage>>) => Promise<unknown>, payload = EDIT) => {
      const client = await connect(form);
      const page = await heldPage();
      const args = payload(`${form}_key_${++key}`, page.ref);
      const call = (a: Record<string, unknown>) =>
        client.callTool({ name: toProviderName("mnote.page.edit"), arguments: a }) as Promise<McpCallResult>;
      const first = envelopeOf(await call(args));
      expect(first.error.code).toBe("mnote_tool_approval_required");
      await decide(page);
      const breaker = new HermesMcpBreaker();
      let raw: McpCallResult | undefined;
      const handed = await breaker.call(async () => (raw = await call(args)));
      expect(breaker.open).toBe(false);
      return { raw: raw!, envelope: envelopeOf(raw!), handed, page, call, args };
    };

    it("applied in part: which changes were applied, which left out and the person's reason", async () => {
      const { raw, envelope, handed } = await run(async ({ ref, panel, pending }) => {
        await panel.proposals.decide({
          ...ref,
          proposalId: await pending(),
          decisions: [
            { index: 0, choice: "accept" },
            { index: 1, choice: "reject", reason: "No new lines today" },
          ],
        });
      });
      expect(raw.isError).toBe(false);
      expect(envelope).toMatchObject({
        ok: true,
        result: {
          commandName: "page.body.edit",
          decision: {
            status: "applied_in_part",
            kept: 1,
            total: 2,
            changes: [
              { change: 0, target: "block p1", outcome: "applied" },
              { change: 1, target: "block a1", outcome: "left_out", reason: "No new lines today" },
            ],
          },
        },
      });
      if (form === "hermes") expect(hermesDetectsFailure(handed)).toBe(false);
    });

    it("applied with a person's edits: the final content of each edited block", async () => {
      const mine = {
        id: "p1",
        type: "paragraph" as const,
        text: "P1, as Ada wrote it",
        marks: [{ type: "bold" as const, start: 0, end: 2 }],
      };
      const { envelope } = await run(async ({ ref, panel, pending }) => {
        await panel.proposals.decide({
          ...ref,
          proposalId: await pending(),
          decisions: [
            { index: 0, choice: "edit", block: mine },
            { index: 1, choice: "accept" },
          ],
        });
      });
      expect(envelope.result.decision).toMatchObject({
        status: "applied_with_edits",
        changes: [{ outcome: "applied_with_edits", final: mine }, { outcome: "applied" }],
      });
    });

    it("rejected: mnote_tool_rejected with who decided and the reason", async () => {
      const { raw, envelope, handed } = await run(async ({ ref, panel, pending }) => {
        await panel.proposals.reject({ ...ref, proposalId: await pending(), reason: "Not on this page" });
      });
      expect(raw.isError).toBe(false);
      expect(envelope.error).toEqual({ code: "mnote_tool_rejected", message: M.rejected("owner", "Not on this page") });
      if (form === "hermes") expect(hermesDetectsFailure(hermesMcpHandlerResult(raw))).toBe(true);
      expect(handed).toContain("mnote_tool_rejected");
    });

    it("conflicted: the blocks changed since, named to read again", async () => {
      const { envelope } = await run(async ({ ref }) => {
        // Someone changes p1 meanwhile (set-up through the kernel: the write's door is not the subject here).
        const out = await kernel.execute({
          identity: {
            toolName: "setup",
            ...ref,
            actorId: world.ids.owner,
            tokenId: null,
            holder: "person",
            sessionId: null,
            runId: null,
            toolCallId: null,
            traceId: null,
          },
          command: { name: "page.body.edit", operations: [{ op: "replace", blockId: "p1", text: "P1 by Ada" }] },
          idempotency: { key: `setup_${Math.random()}`, fingerprint: "setup", expiresAt: "2999-01-01T00:00:00.000Z" },
        });
        expect(out.kind).toBe("applied");
      });
      expect(envelope.error).toEqual({ code: "mnote_tool_conflict", message: M.conflicted(["block p1"], true) });
    });

    it("another payload under the held key: mnote_tool_idempotency_conflict, no second proposal", async () => {
      const { page, call, args } = await run(async () => undefined);
      const other = envelopeOf(await call({ ...args, operations: [{ op: "replace", blockId: "p2", text: "Other" }] }));
      expect(other.error).toEqual({ code: "mnote_tool_idempotency_conflict", message: M.idempotencyConflict });
      expect((await page.panel.proposals.list(page.ref)).filter((p) => p.status === "pending")).toHaveLength(1);
    });
  });
}
