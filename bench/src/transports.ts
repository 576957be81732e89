import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import type { SqlKernel } from "@mnote/kernel";
import { createCaller, createToolsContext } from "@mnote/tools";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { httpPageGet, mcp2026Client, mcpHttpClient, READ_CACHE_OFF, startBenchBridge } from "./bridge";
import { concurrent, fmtMs, fmtPct, fmtRate, median, percentile, roundOrder, table } from "./stats";
import { benchWorld, paragraphs } from "./world";

export const BRIDGE_BIN = fileURLToPath(
  import.meta.resolve("@mnote/hermes-bridge").replace(/src\/index\.ts$/, "bin/mnote-bridge.mjs"),
);

/** Environment for a spawned `mnote-bridge mcp --stdio`: its database and token, no rate limit. */
export function stdioEnv(databaseUrl: string, token: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined) env[key] = value;
  return { ...env, MNOTE_DATABASE_URL: databaseUrl, MNOTE_TOKEN: token, MNOTE_BRIDGE_RATE_LIMIT_RPS: "0" };
}

export async function stdioClient(
  databaseUrl: string,
  token: string,
  env: Record<string, string> = {},
): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BRIDGE_BIN, "mcp", "--stdio"],
    env: { ...stdioEnv(databaseUrl, token), ...env },
    stderr: "ignore",
  });
  const client = new Client({ name: "mnote-bench", version: "0.0.0" });
  await client.connect(transport);
  return client;
}

/** A request's JSON body. */
export function readJson(req: IncomingMessage): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      try {
        resolve(JSON.parse(Buffer.concat(chunks).toString("utf8")));
      } catch (error) {
        reject(error instanceof Error ? error : new Error(String(error)));
      }
    });
    req.on("error", reject);
  });
}

/**
 * The baseline: a bare node:http handler that reads the page straight from the kernel. No auth, no checks, no audit.
 * It answers the same blocks `mnote.page.get` does: the first window (the tool answers at most 32 KB per call).
 */
/** A `node:http` server on a free port of 127.0.0.1, and its URL. */
export async function listen(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
): Promise<{ url: string; server: Server }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

export async function startBareServer(
  kernel: SqlKernel,
  windowBlocks: number,
): Promise<{ url: string; server: Server }> {
  return listen((req, res) => {
    void (async () => {
      const body = (await readJson(req)) as { documentId: string };
      const page = await kernel.getPage(body.documentId);
      const blocks = (await kernel.getBlockWindow(body.documentId, { from: 0, limit: windowBlocks })).map(
        (entry) => entry.block,
      );
      const text = JSON.stringify({ page, blocks });
      res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
      res.end(text);
    })().catch(() => {
      res.writeHead(500);
      res.end();
    });
  });
}

export interface TransportOptions {
  rounds: number;
  callsAtOne: number;
  callsAtSixteen: number;
  pageBlocks: number;
}

const VARIANTS = [
  "bare",
  "createCaller",
  "http",
  "mcpHttp",
  "mcpHttpHermes",
  "mcpHttp2026",
  "mcpStdio",
  "httpUncached",
  "mcpHttpUncached",
  "mcpHttp2026Uncached",
  "mcpStdioUncached",
] as const;
type Variant = (typeof VARIANTS)[number];
const LABELS: Record<Variant, string> = {
  bare: "bare `node:http` → kernel.getPage + the same window of blocks (baseline)",
  createCaller: "`createCaller` in process (no transport)",
  http: "HTTP tool endpoint `POST /v1/tools/mnote.page.get`",
  mcpHttp: "MCP Streamable HTTP `/mcp` (SDK client)",
  mcpHttpHermes: "same, Hermes result form (`X-Mnote-Result-Form: hermes`: a success as text only)",
  mcpHttp2026: "MCP Streamable HTTP `/mcp`, 2026-07-28 revision (SDK 2.x client negotiating; a server per request)",
  mcpStdio: "MCP stdio `mnote-bridge mcp --stdio` (SDK client, one process)",
  httpUncached: "HTTP tool endpoint, read cache off (`MNOTE_READ_CACHE_MB=0`: every call reads the page's rows)",
  mcpHttpUncached: "MCP Streamable HTTP `/mcp` (SDK client), read cache off",
  mcpHttp2026Uncached: "MCP Streamable HTTP `/mcp`, 2026-07-28 revision, read cache off",
  mcpStdioUncached: "MCP stdio, read cache off",
};

interface Sample {
  p50: number;
  p99: number;
  rate: number;
}

/** Section 2: `mnote.page.get` on a 1,000-block page through every transport, against the bare handler. */
export async function runTransports(options: TransportOptions) {
  const world = await benchWorld("transports");
  const page = await world.newPage(paragraphs(options.pageBlocks));
  // How many blocks the tool's first window holds: the baseline sends exactly those.
  const first = await createCaller(
    createToolsContext({ kernel: world.kernel, authorization: `Bearer ${world.token}` }),
  ).mnote.page.get(world.envelope("mnote.page.get", page, {}));
  const windowBlocks = (first.result as { window?: { count: number } } | null)?.window?.count ?? options.pageBlocks;
  const bare = await startBareServer(world.kernel, windowBlocks);
  const bridge = await startBenchBridge(world);
  // The same bridge keeping nothing from one read for the next: what a read of a page state no call read before costs.
  const uncached = await startBenchBridge(world, READ_CACHE_OFF);
  const authorization = `Bearer ${world.token}`;
  const mcpHttp = await mcpHttpClient(bridge.url, authorization);
  const mcpHttpUncached = await mcpHttpClient(uncached.url, authorization);
  const mcpHttpHermes = await mcpHttpClient(bridge.url, authorization, { "X-Mnote-Result-Form": "hermes" });
  const mcpHttp2026 = await mcp2026Client(bridge.url, authorization);
  const mcpHttp2026Uncached = await mcp2026Client(uncached.url, authorization);
  const mcpStdio = await stdioClient(world.databaseUrl, world.token);
  const mcpStdioUncached = await stdioClient(world.databaseUrl, world.token, READ_CACHE_OFF);
  // JSON-RPC by plain fetch, no SDK client: what the bridge alone costs this process (the CPU table below).
  const rawHeaders: Record<string, string> = {
    authorization,
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
  };
  const initialized = await fetch(`${bridge.url}/mcp`, {
    method: "POST",
    headers: rawHeaders,
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "mnote-bench", version: "0" } },
    }),
  });
  await initialized.text();
  rawHeaders["mcp-session-id"] = initialized.headers.get("mcp-session-id")!;
  const modelArguments = { workspaceId: world.ws, documentId: page };

  const calls: Record<Variant, () => Promise<void>> = {
    bare: async () => {
      const response = await fetch(bare.url, { method: "POST", body: JSON.stringify({ documentId: page }) });
      const body = (await response.json()) as { blocks: unknown[] };
      if (response.status !== 200 || body.blocks.length !== windowBlocks) throw new Error("bare call failed");
    },
    createCaller: async () => {
      const out = await createCaller(createToolsContext({ kernel: world.kernel, authorization })).mnote.page.get(
        world.envelope("mnote.page.get", page, {}),
      );
      if (!out.ok) throw new Error(`createCaller failed: ${out.error?.code}`);
    },
    http: () => httpPageGet(bridge.url, world.envelope("mnote.page.get", page, {}), authorization),
    mcpHttp: async () => {
      const out = await mcpHttp.callTool({ name: "mnote_page_get", arguments: modelArguments });
      if (out.isError) throw new Error("mcp http call failed");
    },
    mcpHttpHermes: async () => {
      const out = await mcpHttpHermes.callTool({ name: "mnote_page_get", arguments: modelArguments });
      if (out.isError) throw new Error("mcp http (hermes form) call failed");
    },
    mcpHttp2026: async () => {
      const out = await mcpHttp2026.callTool({ name: "mnote_page_get", arguments: modelArguments });
      if (out.isError) throw new Error("mcp http (2026-07-28) call failed");
    },
    mcpStdio: async () => {
      const out = await mcpStdio.callTool({ name: "mnote_page_get", arguments: modelArguments });
      if (out.isError) throw new Error("mcp stdio call failed");
    },
    httpUncached: () => httpPageGet(uncached.url, world.envelope("mnote.page.get", page, {}), authorization),
    mcpHttpUncached: async () => {
      const out = await mcpHttpUncached.callTool({ name: "mnote_page_get", arguments: modelArguments });
      if (out.isError) throw new Error("mcp http (read cache off) call failed");
    },
    mcpHttp2026Uncached: async () => {
      const out = await mcpHttp2026Uncached.callTool({ name: "mnote_page_get", arguments: modelArguments });
      if (out.isError) throw new Error("mcp http (2026-07-28, read cache off) call failed");
    },
    mcpStdioUncached: async () => {
      const out = await mcpStdioUncached.callTool({ name: "mnote_page_get", arguments: modelArguments });
      if (out.isError) throw new Error("mcp stdio (read cache off) call failed");
    },
  };

  // Warm-up: connections, JIT, the stdio child's first calls.
  for (const variant of VARIANTS) await concurrent(20, 4, () => calls[variant]());

  const samples: Record<string, Sample[]> = {};
  const push = (key: string, sample: Sample) => (samples[key] ??= []).push(sample);
  for (let round = 0; round < options.rounds; round++) {
    for (const concurrency of [1, 16]) {
      const count = concurrency === 1 ? options.callsAtOne : options.callsAtSixteen;
      for (const variant of roundOrder(VARIANTS, round)) {
        const { latencies, elapsedMs } = await concurrent(count, concurrency, () => calls[variant]());
        push(`${variant}@${concurrency}`, {
          p50: percentile(latencies, 50),
          p99: percentile(latencies, 99),
          rate: count / (elapsedMs / 1000),
        });
      }
    }
  }

  // CPU time per call of this process (clients, bridge, baseline; not the stdio child), calls one at a time.
  const cpuCalls: Record<string, () => Promise<void>> = {
    bare: calls.bare,
    http: calls.http,
    mcpRaw: async () => {
      const response = await fetch(`${bridge.url}/mcp`, {
        method: "POST",
        headers: rawHeaders,
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "tools/call",
          params: { name: "mnote_page_get", arguments: modelArguments },
        }),
      });
      const body = (await response.json()) as { result?: { isError?: boolean } };
      if (!body.result || body.result.isError) throw new Error("raw mcp call failed");
    },
    mcpHttp: calls.mcpHttp,
    mcpHttpHermes: calls.mcpHttpHermes,
  };
  const cpu: Record<string, number[]> = {};
  for (let round = 0; round < options.rounds; round++) {
    for (const key of roundOrder(Object.keys(cpuCalls), round)) {
      const before = process.cpuUsage();
      for (let i = 0; i < options.callsAtSixteen; i++) await cpuCalls[key]!();
      const used = process.cpuUsage(before);
      (cpu[key] ??= []).push((used.user + used.system) / options.callsAtSixteen);
    }
  }
  const cpuLabels: Record<string, string> = {
    bare: LABELS.bare,
    http: LABELS.http,
    mcpRaw: "MCP `/mcp`, JSON-RPC by plain `fetch` (no SDK client): the bridge's own MCP cost",
    mcpHttp: LABELS.mcpHttp,
    mcpHttpHermes: LABELS.mcpHttpHermes,
  };
  const cpuMarkdown = table(
    ["path", "CPU µs per call (this process)", "vs bare"],
    Object.keys(cpuCalls).map((key) => [
      cpuLabels[key]!,
      median(cpu[key]!).toFixed(0),
      fmtPct(median(cpu.bare!) / median(cpu[key]!)),
    ]),
  );

  await mcpHttpHermes.close();
  await mcpHttp2026.close();
  await mcpHttp2026Uncached.close();
  await mcpStdio.close();
  await mcpStdioUncached.close();
  await mcpHttp.close();
  await mcpHttpUncached.close();
  await bridge.close();
  await uncached.close();
  await new Promise<void>((resolve) => bare.server.close(() => resolve()));
  bare.server.closeAllConnections();
  await world.kernel.close();

  const stat = (variant: Variant, c: number, field: keyof Sample) =>
    median(samples[`${variant}@${c}`]!.map((s) => s[field]));
  /** Per-round ratio against the bare handler of the same round, then the median. */
  const vsBare = (variant: Variant, c: number) =>
    median(samples[`${variant}@${c}`]!.map((s, i) => s.rate / samples[`bare@${c}`]![i]!.rate));
  const rows = VARIANTS.map((variant) => [
    LABELS[variant],
    ...[1, 16].flatMap((c) => [
      fmtMs(stat(variant, c, "p50")),
      fmtMs(stat(variant, c, "p99")),
      fmtRate(stat(variant, c, "rate")),
      variant === "bare" ? "100%" : fmtPct(vsBare(variant, c)),
    ]),
  ]);
  const markdown = table(
    [
      "path",
      "c=1 p50 ms",
      "c=1 p99 ms",
      "c=1 calls/s",
      "c=1 vs bare",
      "c=16 p50 ms",
      "c=16 p99 ms",
      "c=16 calls/s",
      "c=16 vs bare",
    ],
    rows,
  );
  const at = (v: Variant, c: number) => ({ p50: stat(v, c, "p50"), rate: stat(v, c, "rate"), vsBare: vsBare(v, c) });
  const summary = Object.fromEntries(VARIANTS.map((v) => [v, { c1: at(v, 1), c16: at(v, 16) }])) as Record<
    Variant,
    { c1: ReturnType<typeof at>; c16: ReturnType<typeof at> }
  >;
  return { markdown, summary, cpuMarkdown };
}
