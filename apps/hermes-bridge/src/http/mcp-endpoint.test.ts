import { TOOL_NAMES } from "@mnote/contract";
import type { IncomingMessage } from "node:http";
import type { SqlKernel } from "@mnote/kernel";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clientAddress } from "../auth";
import { captureLogger, createTestWorld, type SeededWorld } from "../test-support";
import { checkSessionId, newSessionId } from "./mcp-endpoint";
import { startBridge, type RunningBridge } from "./server";

describe("session ids carry their own token binding", () => {
  it("verify with the token that opened them and with no other", () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 1, maxLength: 60 }),
        fc.string({ minLength: 1, maxLength: 60 }),
        (secret, other) => {
          fc.pre(secret !== other);
          const id = newSessionId(secret);
          expect(checkSessionId(id, secret)).toBe("ok");
          expect(checkSessionId(id, other)).toBe("foreign");
        },
      ),
      { numRuns: 50 },
    );
  });

  it("anything not shaped like one is unknown (the client re-initializes on 404)", () => {
    for (const id of ["nope", "", "mcp_x.y", `${newSessionId("s")}x`, "mcp_AAAAAAAAAAAAAAAAAAAAAA.zz"]) {
      expect(checkSessionId(id, "s")).toBe("unknown");
    }
  });
});

describe("clientAddress", () => {
  const req = (peer: string, forwarded?: string) =>
    ({
      socket: { remoteAddress: peer },
      headers: forwarded ? { "x-forwarded-for": forwarded } : {},
    }) as unknown as IncomingMessage;
  it("is the peer unless the peer is a trusted proxy; then the nearest untrusted forwarded address", () => {
    expect(clientAddress(req("::ffff:10.0.0.5", "1.2.3.4"), [])).toBe("10.0.0.5");
    expect(clientAddress(req("10.0.0.5", "1.2.3.4"), ["10.0.0.9"])).toBe("10.0.0.5");
    expect(clientAddress(req("10.0.0.9", "6.6.6.6, 1.2.3.4"), ["10.0.0.9"])).toBe("1.2.3.4");
    expect(clientAddress(req("10.0.0.9", "1.2.3.4, 10.0.0.8"), ["10.0.0.9", "10.0.0.8"])).toBe("1.2.3.4");
    expect(clientAddress(req("10.0.0.9"), ["10.0.0.9"])).toBe("10.0.0.9");
  });
});

/**
 * The wire exchange of the MCP Python SDK's streamable HTTP client, which Hermes uses for
 * `mcp_servers` over HTTP (Hermes tools/mcp_tool.py, `streamablehttp_client`; pyproject pins
 * mcp==1.26.0): it keeps the session id from the initialize answer's header, GETs a stream only
 * when it has one and treats a failed GET as non-fatal, maps a 404 to "Session terminated", and
 * takes a 405 on DELETE as "the server does not end sessions". Python's client is not installed
 * here, so its requests are replayed as it sends them.
 */
describe("/mcp speaks what the Python SDK client expects, statelessly", () => {
  let kernel: SqlKernel;
  let world: SeededWorld;
  let bridge: RunningBridge;
  beforeAll(async () => {
    const created = await createTestWorld();
    kernel = created.kernel;
    world = created;
    bridge = await startBridge({ kernel, port: 0, logger: captureLogger().logger, rateLimit: null, env: {} });
  });
  afterAll(async () => {
    await bridge?.close();
    await kernel?.close();
  });

  const send = (method: string, headers: Record<string, string>, body?: unknown) =>
    fetch(`${bridge.url}/mcp`, {
      method,
      headers: {
        accept: "application/json, text/event-stream",
        "content-type": "application/json",
        authorization: `Bearer ${world.tokens.owner}`,
        ...headers,
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });

  it("initialize → session header; initialized → 202; GET → 405; tools/list → JSON; unknown session → 404; DELETE → 405", async () => {
    const init = await send(
      "POST",
      {},
      {
        jsonrpc: "2.0",
        id: 0,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "mcp", version: "0.1.0" } },
      },
    );
    expect(init.status).toBe(200);
    expect(init.headers.get("content-type")).toMatch(/^application\/json/);
    const sessionId = init.headers.get("mcp-session-id")!;
    expect(checkSessionId(sessionId, world.tokens.owner)).toBe("ok");
    const result = (await init.json()) as { result: { protocolVersion: string } };
    const session = { "mcp-session-id": sessionId, "mcp-protocol-version": result.result.protocolVersion };

    expect((await send("POST", session, { jsonrpc: "2.0", method: "notifications/initialized" })).status).toBe(202);
    const stream = await send("GET", { ...session, accept: "text/event-stream" });
    expect(stream.status).toBe(405);
    const list = await send("POST", session, { jsonrpc: "2.0", id: 1, method: "tools/list", params: {} });
    expect(list.status).toBe(200);
    expect(list.headers.get("content-type")).toMatch(/^application\/json/);
    expect(((await list.json()) as { result: { tools: unknown[] } }).result.tools).toHaveLength(TOOL_NAMES.length);
    expect(
      (await send("POST", { ...session, "mcp-session-id": "gone" }, { jsonrpc: "2.0", id: 2, method: "tools/list" }))
        .status,
    ).toBe(404);
    expect((await send("DELETE", session)).status).toBe(405);
  });

  it("takes the handshake when its header names the newer revision, as Hermes on the mcp 2.x SDK sends it", async () => {
    // Hermes seeds `mcp-protocol-version: <its SDK's LATEST_PROTOCOL_VERSION>` on every request (tools/mcp_tool.py
    // `_run_http`), initialize included; on mcp 2.x that is 2026-07-28 while the body negotiates 2025-11-25.
    const newer = { "mcp-protocol-version": "2026-07-28" };
    const init = await send("POST", newer, {
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "mcp", version: "2.3.0" } },
    });
    expect(init.status).toBe(200);
    expect(((await init.json()) as { result: { protocolVersion: string } }).result.protocolVersion).toBe("2025-11-25");
    // After the handshake the SDK's transport sends the negotiated revision, as it does for any server.
    const session = { "mcp-protocol-version": "2025-11-25", "mcp-session-id": init.headers.get("mcp-session-id")! };
    expect((await send("POST", session, { jsonrpc: "2.0", method: "notifications/initialized" })).status).toBe(202);
    const list = await send("POST", session, { jsonrpc: "2.0", id: 1, method: "tools/list", params: {} });
    expect(list.status).toBe(200);
    expect(((await list.json()) as { result: { tools: unknown[] } }).result.tools).toHaveLength(TOOL_NAMES.length);
  });

  /** A 2026-07-28 request as the SDK 2.x client sends it: no session; the revision and the client in `_meta`. */
  const modern = (method: string, params: Record<string, unknown>, headers: Record<string, string> = {}) =>
    send(
      "POST",
      {
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": method,
        ...(typeof params.name === "string" ? { "mcp-name": params.name } : {}),
        ...headers,
      },
      {
        jsonrpc: "2.0",
        id: 7,
        method,
        params: {
          ...params,
          _meta: {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientInfo": { name: "raw", version: "0" },
            "io.modelcontextprotocol/clientCapabilities": {},
          },
        },
      },
    );

  it("2026-07-28: a result is the bridge's writer's (ASCII, the envelope twice, one value); the SDK's refusals are its own", async () => {
    const page = await kernel.admin.createPage({
      id: "doc_modern_raw",
      workspaceId: world.ids.ws,
      title: "Grüße…",
      blocks: [{ id: "m1", type: "paragraph", text: "日本語のページ" }],
      createdBy: world.ids.owner,
    });
    const args = { workspaceId: world.ids.ws, documentId: page.id };
    for (let i = 0; i < 2; i++) {
      const answer = await modern("tools/call", { name: "mnote_page_get", arguments: args });
      expect(answer.status).toBe(200);
      expect(answer.headers.get("content-type")).toMatch(/^application\/json/);
      const bytes = Buffer.from(await answer.arrayBuffer());
      expect(Number(answer.headers.get("content-length"))).toBe(bytes.length);
      expect(bytes.every((byte) => byte < 0x80)).toBe(true);
      const message = JSON.parse(bytes.toString("latin1")) as {
        id: number;
        result: { structuredContent: { ok: boolean }; content: Array<{ text: string }>; isError: boolean };
      };
      expect(message.id).toBe(7);
      expect(message.result.structuredContent).toMatchObject({ ok: true, result: { title: "Grüße…" } });
      expect(JSON.parse(message.result.content[0]!.text)).toEqual(message.result.structuredContent);
      // Nothing of the stand-in the SDK's transport was handed is left in the answer.
      expect(bytes.toString("latin1")).not.toContain("mnote-answer-");
    }
    // server/discover is a result too: the SDK's server answers it, this writer writes it.
    const discover = await modern("server/discover", {});
    expect(discover.status).toBe(200);
    const discovered = (await discover.json()) as { result: { serverInfo?: { name: string } } };
    expect(JSON.stringify(discovered)).toContain('"mnote"');
    // A request whose Mcp-Name header disagrees with its body: the SDK's 400, as it wrote it.
    const mismatched = await modern("tools/call", { name: "mnote_page_get", arguments: args }, { "mcp-name": "other" });
    expect(mismatched.status).toBe(400);
    expect(((await mismatched.json()) as { error?: { code: number } }).error?.code).toEqual(expect.any(Number));
  });

  it("2026-07-28: many exchanges at once, alternating tokens, each answered to its own request as its own token", async () => {
    // The SDK serves each exchange on a server that serves nothing else meanwhile, and the door keeps a closed one
    // for a later exchange (ModernServers): nothing of one exchange (its id, token, result form, answer) may reach
    // another, at once or after.
    const args = { workspaceId: world.ids.ws, documentId: world.ids.page };
    for (let wave = 0; wave < 2; wave++) {
      const answers = await Promise.all(
        Array.from({ length: 16 }, async (_, i) => {
          const stranger = i % 2 === 1;
          const hermes = i % 4 === 2;
          const response = await fetch(`${bridge.url}/mcp`, {
            method: "POST",
            headers: {
              accept: "application/json, text/event-stream",
              "content-type": "application/json",
              authorization: `Bearer ${stranger ? world.tokens.stranger : world.tokens.owner}`,
              "mcp-protocol-version": "2026-07-28",
              "mcp-method": "tools/call",
              "mcp-name": "mnote_page_get",
              ...(hermes ? { "x-mnote-result-form": "hermes" } : {}),
            },
            body: JSON.stringify({
              jsonrpc: "2.0",
              id: 100 * wave + i,
              method: "tools/call",
              params: {
                name: "mnote_page_get",
                arguments: args,
                _meta: {
                  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                  "io.modelcontextprotocol/clientInfo": { name: `raw-${i}`, version: "0" },
                  "io.modelcontextprotocol/clientCapabilities": {},
                },
              },
            }),
          });
          expect(response.status).toBe(200);
          const message = (await response.json()) as {
            id: number;
            result: { structuredContent?: { ok: boolean; error?: { code: string } }; content: unknown[] };
          };
          return { i, stranger, hermes, message };
        }),
      );
      for (const { i, stranger, hermes, message } of answers) {
        expect(message.id).toBe(100 * wave + i);
        if (stranger) {
          expect(message.result.structuredContent).toMatchObject({ ok: false });
          expect(message.result.structuredContent?.error?.code).not.toBe("mnote_tool_unavailable");
        } else if (hermes) {
          // The Hermes form: a success as text only.
          expect(message.result.structuredContent).toBeUndefined();
          expect(message.result.content).toHaveLength(1);
        } else {
          expect(message.result.structuredContent).toMatchObject({ ok: true });
        }
      }
    }
  });
});
