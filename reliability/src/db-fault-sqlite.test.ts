import { TOOL_NAMES } from "@mnote/contract";
import Database from "better-sqlite3";
import type { RunningBridge } from "@mnote/hermes-bridge";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { businessSnapshot, createWorld, expectContractFailure, postTool, startTestBridge, type World } from "./support";

/**
 * Issue 11, item 1 on SQLite: another process holds the database's write lock longer than the
 * busy timeout (5 s), so the write fails with SQLITE_BUSY. The caller gets the contract's
 * `mnote_tool_unavailable` with nothing written, the bridge keeps serving, and once the lock is
 * gone the same call (same idempotency key) writes exactly once. And every door of a bridge whose
 * database cannot answer at all: the health endpoints tell the truth, the others answer 503.
 */
describe("database faults on SQLite: a write lock held elsewhere", () => {
  let world: World;
  let bridge: RunningBridge;
  let holder: Database.Database | null = null;

  beforeAll(async () => {
    world = await createWorld({ file: true });
    bridge = await startTestBridge(world.kernel);
  });
  afterAll(async () => {
    holder?.close();
    await bridge?.close();
    await world?.close();
  });

  it("answers unavailable with nothing written, then writes once when the lock is released", async () => {
    const auth = { authorization: `Bearer ${world.tokens.owner}` };
    const envelope = world.envelope("mnote.page.save", {
      args: { mode: "append", content: [{ type: "paragraph", text: "written after the lock" }] },
    });
    const before = await businessSnapshot(world.kernel);

    // Another process's writer (a second connection is the same to SQLite), holding the lock.
    holder = new Database(world.path);
    holder.prepare("BEGIN IMMEDIATE").run();
    const refused = await postTool(bridge, "mnote_page_save", envelope, auth);
    expect(expectContractFailure(refused.json, refused.status).error?.code).toBe("mnote_tool_unavailable");
    holder.prepare("ROLLBACK").run();
    holder.close();
    holder = null;
    expect(await businessSnapshot(world.kernel)).toEqual(before);

    const health = await fetch(`${bridge.url}/readyz`);
    expect(health.status).toBe(200);
    const retried = await postTool(bridge, "mnote_page_save", envelope, auth);
    expect(retried.status).toBe(200);
    expect((retried.json as { ok: boolean }).ok).toBe(true);
    const texts = (await world.kernel.getBlocks(world.ids.page)).map((block) => block.text);
    expect(texts.filter((text) => text === "written after the lock")).toHaveLength(1);
  }, 60_000);

  it("with its database closed: /livez 200, /readyz and /healthz 503, /v1/whoami and /mcp 503 in their own shapes", async () => {
    const auth = { authorization: `Bearer ${world.tokens.owner}` };
    await world.kernel.close();
    const get = async (path: string, headers: Record<string, string> = {}) => {
      const response = await fetch(`${bridge.url}${path}`, { headers });
      return { status: response.status, json: await response.json() };
    };
    expect(await get("/livez")).toEqual({ status: 200, json: { ok: true, tools: TOOL_NAMES.length } });
    const unavailable = { code: "mnote_tool_unavailable", message: "mnote is unavailable; retry later" };
    for (const path of ["/readyz", "/healthz"]) {
      expect(await get(path)).toEqual({
        status: 503,
        json: { ok: false, tools: TOOL_NAMES.length, error: unavailable },
      });
    }
    expect(await get("/v1/whoami", auth)).toEqual({ status: 503, json: { error: unavailable } });
    const mcp = await fetch(`${bridge.url}/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...auth },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
    });
    expect(mcp.status).toBe(503);
    expect(await mcp.json()).toEqual({
      jsonrpc: "2.0",
      id: null,
      error: { code: -32603, message: unavailable.message },
    });
    const read = await postTool(bridge, "mnote_page_get", world.envelope("mnote.page.get"), auth);
    expect(expectContractFailure(read.json, read.status).error).toEqual(unavailable);
  });
});
