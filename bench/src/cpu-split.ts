import { fork, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { httpPageGet, remotePageGetEnvelope } from "./bridge";
import { fmtPct, median, roundOrder, table } from "./stats";

/** What the child tells its parent once its bridge and baseline listen. */
interface Ready {
  bridgeUrl: string;
  bareUrl: string;
  token: string;
  ws: string;
  owner: string;
  page: string;
  windowBlocks: number;
}

/**
 * The child: a world, the bridge and the bare baseline, nothing else, so its CPU time is the servers' alone. It
 * answers "cpu" with its process.cpuUsage() total in µs.
 */
async function child() {
  const { benchWorld, paragraphs } = await import("./world");
  const { startBenchBridge } = await import("./bridge");
  const { startBareServer } = await import("./transports");
  const { createCaller, createToolsContext } = await import("@mnote/tools");
  const world = await benchWorld("cpu-split");
  const pageBlocks = Number(process.argv[3] ?? 1000);
  const page = await world.newPage(paragraphs(pageBlocks));
  const first = await createCaller(
    createToolsContext({ kernel: world.kernel, authorization: `Bearer ${world.token}` }),
  ).mnote.page.get(world.envelope("mnote.page.get", page, {}));
  const windowBlocks = (first.result as { window?: { count: number } } | null)?.window?.count ?? pageBlocks;
  // The bridge's configuration, as the parent asked (`startSplit`'s `bridgeEnv`: the read cache off, say).
  const bridge = await startBenchBridge(world, JSON.parse(process.argv[4] ?? "{}") as Record<string, string>);
  const bare = await startBareServer(world.kernel, windowBlocks);
  const { Session } = await import("node:inspector/promises");
  const session = new Session();
  session.connect();
  process.on("message", (message) => {
    if (message === "profile-start") {
      void (async () => {
        await session.post("Profiler.enable");
        await session.post("Profiler.setSamplingInterval", { interval: 50 });
        await session.post("Profiler.start");
        process.send!({ started: true });
      })();
    } else if (message === "profile-stop") {
      void session.post("Profiler.stop").then(({ profile }) => process.send!({ profile }));
    } else if (message === "cpu") {
      const used = process.cpuUsage();
      process.send!({ cpu: used.user + used.system });
    } else if (message === "exit") {
      void bridge.close().then(() => process.exit(0));
    }
  });
  const ready: Ready = {
    bridgeUrl: bridge.url,
    bareUrl: bare.url,
    token: world.token,
    ws: world.ws,
    owner: world.owner,
    page,
    windowBlocks,
  };
  process.send!(ready);
}

export function ask<T>(proc: ChildProcess, message: string): Promise<T> {
  return new Promise((resolve) => {
    proc.once("message", (answer) => resolve(answer as T));
    proc.send(message);
  });
}

export const PATHS = ["bare", "http", "mcpRaw", "mcpRawHermes", "mcpRaw2026", "mcpSdk", "mcpSdk2026"] as const;
export type SplitPath = (typeof PATHS)[number];
const LABELS: Record<SplitPath, string> = {
  bare: "bare `node:http` → kernel.getPage + the same window (baseline)",
  http: "HTTP tool endpoint",
  mcpRaw: "MCP `/mcp`, standard form, JSON-RPC by plain `fetch`",
  mcpRawHermes: "MCP `/mcp`, Hermes form, JSON-RPC by plain `fetch`",
  mcpRaw2026: "MCP `/mcp`, 2026-07-28 revision, JSON-RPC by plain `fetch`",
  mcpSdk: "MCP `/mcp`, standard form, SDK 1.x client",
  mcpSdk2026: "MCP `/mcp`, 2026-07-28 revision, SDK 2.x client negotiating",
};

/**
 * Where a call's CPU goes, server against client: the bridge and the baseline run in a child process (its own
 * `process.cpuUsage()`), the clients in this one; calls one at a time. On a loaded 2-core machine both columns
 * move with the load, so compare rows of one run.
 */
export async function runCpuSplit(options: { rounds: number; calls: number; pageBlocks: number }) {
  const { proc, calls, close } = await startSplit(options.pageBlocks);
  for (const path of PATHS) for (let i = 0; i < 50; i++) await calls[path]();
  const server: Record<string, number[]> = {};
  const client: Record<string, number[]> = {};
  for (let round = 0; round < options.rounds; round++) {
    for (const path of roundOrder(PATHS, round)) {
      const before = (await ask<{ cpu: number }>(proc, "cpu")).cpu;
      const mine = process.cpuUsage();
      for (let i = 0; i < options.calls; i++) await calls[path]();
      const used = process.cpuUsage(mine);
      const after = (await ask<{ cpu: number }>(proc, "cpu")).cpu;
      (server[path] ??= []).push((after - before) / options.calls);
      (client[path] ??= []).push((used.user + used.system) / options.calls);
    }
  }
  await close();
  const total = (path: SplitPath) => median(server[path]!) + median(client[path]!);
  /**
   * The most a path could keep with its client as it is: its server costing only what the bare handler's does. The
   * client's cost is the client's (the SDK's parse and checks of a 2-copy answer), not something the bridge can lower.
   */
  const ceiling = (path: SplitPath) => total("bare") / (median(server.bare!) + median(client[path]!));
  const markdown = table(
    ["path", "server µs per call", "client µs per call", "sum", "sum vs bare", "with a server as cheap as bare"],
    PATHS.map((path) => [
      LABELS[path],
      median(server[path]!).toFixed(0),
      median(client[path]!).toFixed(0),
      total(path).toFixed(0),
      fmtPct(total("bare") / total(path)),
      fmtPct(ceiling(path)),
    ]),
  );
  return {
    markdown,
    ceilings: Object.fromEntries(PATHS.map((p) => [p, ceiling(p)])) as Record<SplitPath, number>,
    sumVsBare: Object.fromEntries(PATHS.map((p) => [p, total("bare") / total(p)])) as Record<SplitPath, number>,
    server: Object.fromEntries(PATHS.map((p) => [p, median(server[p]!)])),
    client: Object.fromEntries(PATHS.map((p) => [p, median(client[p]!)])),
  };
}

/** The servers' child process and one call function per path; `close` ends both. `bridgeEnv`: its configuration. */
export async function startSplit(pageBlocks: number, bridgeEnv: Record<string, string> = {}) {
  const proc = fork(fileURLToPath(import.meta.url), ["child", String(pageBlocks), JSON.stringify(bridgeEnv)], {
    execArgv: ["--import", "tsx"],
    stdio: ["ignore", "ignore", "inherit", "ipc"],
  });
  const ready = await new Promise<Ready>((resolve, reject) => {
    proc.once("message", (message) => resolve(message as Ready));
    proc.once("error", reject);
  });
  const { mcp2026Client, mcpHttpClient } = await import("./bridge");
  const authorization = `Bearer ${ready.token}`;
  const sdk = await mcpHttpClient(ready.bridgeUrl, authorization, {}, "mnote-bench-split");
  const sdk2026 = await mcp2026Client(ready.bridgeUrl, authorization);
  const mcpHeaders: Record<string, string> = {
    authorization,
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
  };
  const initialized = await fetch(`${ready.bridgeUrl}/mcp`, {
    method: "POST",
    headers: mcpHeaders,
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "mnote-bench", version: "0" } },
    }),
  });
  await initialized.text();
  mcpHeaders["mcp-session-id"] = initialized.headers.get("mcp-session-id")!;
  const modelArguments = { workspaceId: ready.ws, documentId: ready.page };
  const toolsCall = JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: { name: "mnote_page_get", arguments: modelArguments },
  });
  // A 2026-07-28 request as the SDK 2.x client sends it: no session, the revision and the client in `_meta`, the
  // method and tool name in headers too.
  const modernCall = JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: {
      name: "mnote_page_get",
      arguments: modelArguments,
      _meta: {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": { name: "mnote-bench", version: "0" },
        "io.modelcontextprotocol/clientCapabilities": {},
      },
    },
  });
  const { "mcp-session-id": _session, ...modernHeaders } = mcpHeaders;
  Object.assign(modernHeaders, {
    "mcp-method": "tools/call",
    "mcp-name": "mnote_page_get",
    "mcp-protocol-version": "2026-07-28",
  });
  const raw = async (headers: Record<string, string>, payload = toolsCall) => {
    const response = await fetch(`${ready.bridgeUrl}/mcp`, { method: "POST", headers, body: payload });
    const body = (await response.json()) as { result?: { isError?: boolean } };
    if (!body.result || body.result.isError) throw new Error("cpu split: mcp call failed");
  };
  const calls: Record<SplitPath, () => Promise<void>> = {
    bare: async () => {
      const response = await fetch(ready.bareUrl, { method: "POST", body: JSON.stringify({ documentId: ready.page }) });
      const body = (await response.json()) as { blocks: unknown[] };
      if (body.blocks.length !== ready.windowBlocks) throw new Error("cpu split: bare call failed");
    },
    http: () => httpPageGet(ready.bridgeUrl, remotePageGetEnvelope(ready), authorization),
    mcpRaw: () => raw(mcpHeaders),
    mcpRawHermes: () => raw({ ...mcpHeaders, "x-mnote-result-form": "hermes" }),
    mcpRaw2026: () => raw(modernHeaders, modernCall),
    mcpSdk: async () => {
      const out = await sdk.callTool({ name: "mnote_page_get", arguments: modelArguments });
      if (out.isError) throw new Error("cpu split: sdk call failed");
    },
    mcpSdk2026: async () => {
      const out = await sdk2026.callTool({ name: "mnote_page_get", arguments: modelArguments });
      if (out.isError) throw new Error("cpu split: sdk 2.x call failed");
    },
  };
  const close = async () => {
    await sdk.close();
    await sdk2026.close();
    const exited = new Promise((resolve) => proc.once("exit", resolve));
    proc.send("exit");
    await exited;
  };
  return { proc, calls, close };
}

if (process.argv[2] === "child") await child();
