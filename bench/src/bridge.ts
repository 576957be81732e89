import { createLogger, startBridge } from "@mnote/hermes-bridge";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { BenchWorld } from "./world";

/** A pino logger that formats every line (the bridge's real cost) and drops it (no terminal I/O in the numbers). */
export const discardingLogger = () => createLogger({ destination: { write: () => undefined } });

/** The bridge every bench line measures: in this process, on a free port, rate limit off, log lines dropped. */
export function startBenchBridge(world: Pick<BenchWorld, "kernel">) {
  return startBridge({
    kernel: world.kernel,
    port: 0,
    host: "127.0.0.1",
    logger: discardingLogger(),
    rateLimit: null,
    env: {},
  });
}

/** The MCP SDK's client over Streamable HTTP to the bridge's `/mcp`, as `authorization` (plus `headers`). */
export async function mcpHttpClient(
  bridgeUrl: string,
  authorization: string,
  headers: Record<string, string> = {},
  name = "mnote-bench",
): Promise<Client> {
  const client = new Client({ name, version: "0.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${bridgeUrl}/mcp`), {
      requestInit: { headers: { Authorization: authorization, ...headers } },
    }),
  );
  return client;
}

/** One `mnote.page.get` through the bridge's HTTP tool endpoint; throws unless it answers 200 with ok. */
export async function httpPageGet(bridgeUrl: string, world: BenchWorld, page: string, authorization: string) {
  const response = await fetch(`${bridgeUrl}/v1/tools/mnote.page.get`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization },
    body: JSON.stringify(world.envelope("mnote.page.get", page, {})),
  });
  const body = (await response.json()) as { ok: boolean };
  if (response.status !== 200 || !body.ok) throw new Error(`http call failed: ${response.status}`);
}
