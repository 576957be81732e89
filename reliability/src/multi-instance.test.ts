import { createServer, request as httpRequest, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { openPostgresDriver, SqlKernel, type SqlDriver } from "@mnote/kernel";
import { freshSchemaName, postgresAvailability } from "@mnote/kernel/conformance";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, describe, expect, it } from "vitest";
import { type BridgeProcess, startBridgeProcess, stopBridgeProcess } from "./support";

/**
 * Issue 11, item 7: several bridges on one PostgreSQL behind a plain round-robin balancer,
 * no sticky sessions. One real MCP SDK client talks to a tiny proxy that sends each request to
 * the next bridge process in turn; every call must work, and the failed-authentication limit
 * must hold across both processes (the kernel's shared fixed-window counter).
 */
const server = postgresAvailability();

/**
 * A plain round-robin HTTP balancer: each request goes to the next upstream, whatever its
 * session header says; it adds X-Forwarded-For like any proxy. Counts what each upstream served.
 */
function roundRobinProxy(): Promise<{ server: Server; port: number; upstreams: number[]; served: number[] }> {
  const upstreams: number[] = [];
  const served: number[] = [];
  let next = 0;
  const proxy = createServer((req, res) => {
    const index = next++ % upstreams.length;
    served[index] = (served[index] ?? 0) + 1;
    const forwarded = [req.headers["x-forwarded-for"], req.socket.remoteAddress].filter(Boolean).join(", ");
    const upstream = httpRequest(
      // A fresh upstream connection per request: no race with a bridge closing an idle keep-alive socket.
      {
        host: "127.0.0.1",
        port: upstreams[index],
        method: req.method,
        path: req.url,
        headers: { ...req.headers, connection: "close", "x-forwarded-for": forwarded },
        agent: false,
      },
      (answer) => {
        res.writeHead(answer.statusCode!, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on("error", () => res.destroy());
    req.pipe(upstream);
  });
  return new Promise((resolve) =>
    proxy.listen(0, "127.0.0.1", () =>
      resolve({ server: proxy, port: (proxy.address() as AddressInfo).port, upstreams, served }),
    ),
  );
}

describe.skipIf(!server.available)("two bridge processes on one PostgreSQL behind a round-robin balancer", () => {
  const bridges: BridgeProcess[] = [];
  let proxy: Awaited<ReturnType<typeof roundRobinProxy>> | undefined;
  let driver: SqlDriver | undefined;
  let client: Client | undefined;
  afterAll(async () => {
    await client?.close().catch(() => undefined);
    await Promise.all(bridges.map(stopBridgeProcess));
    await new Promise((resolve) => (proxy ? proxy.server.close(resolve) : resolve(undefined)));
    await driver?.close();
  });

  it("one MCP SDK client's alternate requests all succeed, and the failed-auth limit holds across both", async () => {
    const url = new URL(server.url);
    url.searchParams.set("schema", freshSchemaName("mnote_h7_rr"));
    const databaseUrl = url.toString();
    driver = await openPostgresDriver(databaseUrl, { dropSchemaOnClose: true, poolMax: 2 });
    const kernel = await SqlKernel.open(driver);
    const owner = (await kernel.admin.createUser({ id: "owner", name: "Owner" })).id;
    const ws = (
      await kernel.admin.createWorkspace({ id: "ws_rr", name: "Team", ownerId: owner, approvalRequired: false })
    ).id;
    const doc = (await kernel.admin.createPage({ id: "doc_rr", workspaceId: ws, title: "Shared", createdBy: owner }))
      .id;
    const { token } = await kernel.admin.createToken({
      userId: owner,
      holder: "agent",
      scopes: ["page.read", "page.write", "artifact.write"],
    });

    proxy = await roundRobinProxy();
    const env = {
      // Behind the balancer: its Host on /mcp, its X-Forwarded-For for the client address.
      MNOTE_BRIDGE_ALLOWED_HOSTS: `127.0.0.1:${proxy.port}`,
      MNOTE_BRIDGE_TRUSTED_PROXIES: "127.0.0.1",
      MNOTE_BRIDGE_RATE_LIMIT_RPS: "0",
      // A day-long window: the count cannot roll over during the test.
      MNOTE_BRIDGE_AUTH_FAILURES: "10",
      MNOTE_BRIDGE_AUTH_FAILURE_WINDOW_SECONDS: "86400",
    };
    bridges.push(...(await Promise.all([startBridgeProcess(databaseUrl, env), startBridgeProcess(databaseUrl, env)])));
    proxy.upstreams.push(...bridges.map((b) => b.port));

    // 1. One real MCP SDK client; the balancer alternates its requests between the processes.
    const transport = new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${proxy.port}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    });
    client = new Client({ name: "round-robin-test", version: "0.0.1" });
    await client.connect(transport);
    const page = { workspaceId: ws, documentId: doc };
    const tools = await client.listTools();
    expect(tools.tools.map((t) => t.name)).toContain("mnote_page_save");
    const outputs: Array<{ ok: boolean; error: unknown }> = [];
    for (let i = 0; i < 6; i++) {
      const title = await client.callTool({
        name: "mnote_page_update_title",
        arguments: { ...page, title: `Title ${i}`, idempotencyKey: `rr_title_${i}` },
      });
      const read = await client.callTool({ name: "mnote_page_get", arguments: page });
      outputs.push(title.structuredContent as never, read.structuredContent as never);
      expect((read.structuredContent as { result: { title: string } }).result.title).toBe(`Title ${i}`);
    }
    expect(outputs.filter((o) => !o.ok)).toEqual([]);
    // Both processes answered the one client (initialize, notifications, list, 12 calls).
    expect(proxy.served[0]).toBeGreaterThan(3);
    expect(proxy.served[1]).toBeGreaterThan(3);
    // The one session id scopes every call in the audit, whichever process wrote it.
    const audit = await kernel.listAudit({ documentId: doc });
    expect(new Set(audit.map((record) => record.identity.sessionId))).toEqual(new Set([transport.sessionId]));

    // 2. Rotating fake tokens through the balancer: one budget for the client address, not one per process.
    const statuses: number[] = [];
    for (let i = 0; i < 30; i++) {
      const answer = await fetch(`http://127.0.0.1:${proxy.port}/v1/whoami`, {
        headers: { authorization: `Bearer fake_${i}`, "x-forwarded-for": "203.0.113.9" },
      });
      statuses.push(answer.status);
    }
    // At most one failure more than the budget per extra process (it learns the shared count on its next failure).
    const reachedTheDatabase = statuses.filter((s) => s === 401).length;
    expect(reachedTheDatabase).toBeGreaterThanOrEqual(10);
    expect(reachedTheDatabase).toBeLessThanOrEqual(11);
    expect(statuses.slice(-10)).toEqual(Array.from({ length: 10 }, () => 429));
    // 3. Issue 20: the same client address with a valid token is answered by both processes, the flood notwithstanding.
    const valid: number[] = [];
    for (let i = 0; i < 4; i++) {
      const answer = await fetch(`http://127.0.0.1:${proxy.port}/v1/whoami`, {
        headers: { authorization: `Bearer ${token}`, "x-forwarded-for": "203.0.113.9" },
      });
      valid.push(answer.status);
    }
    expect(valid).toEqual([200, 200, 200, 200]);

    // 4. Issue 24: each process keeps what it read of a page state (decision 0029). A read on either process after
    // the other one's edit shows the edit: the cache is keyed by the revision the call's own checks read.
    const texts = async () => {
      const read = await client!.callTool({ name: "mnote_page_get", arguments: page });
      const result = (read.structuredContent as { result: { revision: number; blocks: Array<{ text: string }> } })
        .result;
      return { revision: result.revision, texts: result.blocks.map((block) => block.text) };
    };
    const expected: string[] = [];
    for (let i = 0; i < 6; i++) {
      const edit = await client.callTool({
        name: "mnote_page_edit",
        arguments: {
          ...page,
          operations: [{ op: "insert", at: "end", blocks: [{ type: "paragraph", text: `line ${i}` }] }],
          idempotencyKey: `rr_edit_${i}`,
        },
      });
      expect((edit.structuredContent as { ok: boolean }).ok).toBe(true);
      expected.push(`line ${i}`);
      // Twice: one read lands on each process, one of which read the page before the other process's edit.
      const [first, second] = [await texts(), await texts()];
      expect(first.texts).toEqual(expected);
      expect(second).toEqual(first);
    }
  }, 180_000);
});
