/**
 * How far two of section 2's goal rows could rise with their clients as they are (decision 0052), measured as section 2
 * measures them: calls/s against the bare handler's, in one process, at c=1 and c=16, the contenders taking turns:
 *
 *   node --expose-gc --import tsx src/ceilings.ts [rounds] [calls at c=1] [calls at c=16]
 *
 * (section 2 of `pnpm bench` runs it too, `runCeilings`).
 *
 * Each contender answers with the bridge's own recorded answers (the same bytes, each request's id put in), so the
 * client does exactly the work it does against the bridge; what differs is what the server does before answering.
 *
 * The 2026-07-28 revision (SDK 2.x client; goal ≥ 75% "with the SDK's `createMcpHandler` still checking, dispatching
 * and framing"):
 * - a replay with nothing in front (no database, router or SDK server): the most any server could reach with this
 *   client;
 * - the SDK's `createMcpHandler` in front, with a tool that costs nothing: the most a server that keeps what the goal
 *   keeps could reach. What it leaves above 75% is all the room mnote's own work (the door's checks and its routing
 *   of two protocol eras, the token, the contract's checks, the audit record, the read, the envelope) has on this
 *   path; the table prints it in µs per call, from the bare handler's time in the same run.
 *
 * MCP Streamable HTTP with the read cache off (SDK 1.x client, the 2025 session; goal ≥ 65%):
 * - a replay with nothing in front: the most the cache-on row could reach with this client;
 * - a replay after reading the page and its window's rows exactly as the bare handler does (one `getPage`, one
 *   `getBlockWindow`): what reading those rows costs on its own;
 * - the bridge with its read cache on, the window's rows read in this process before each call (`getBlockWindow`;
 *   the page's row a first read takes from its checks' read, as a cached one does): the most a first read of a page
 *   state could reach, if everything it did beyond reading its window's rows cost nothing more than a cached read.
 *   (The goal's table measures client and server in one process, so rows read here cost the run what rows read by
 *   the bridge would.)
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { fileURLToPath } from "node:url";
import { createMcpHandler, Server } from "@modelcontextprotocol/server";
import { createCaller, createToolsContext } from "@mnote/tools";
import { abortIsolatingFetch, mcp2026Client, mcpHttpClient, READ_CACHE_OFF, startBenchBridge } from "./bridge";
import { concurrent, fmtPct, median, roundOrder, table } from "./stats";
import { listen, readJson, startBareServer } from "./transports";
import { benchWorld, paragraphs } from "./world";

/** One recorded answer: the bridge's status, headers the client reads, and body split around the request's id. */
interface Template {
  status: number;
  headers: Record<string, string>;
  before: string;
  after: string;
}

/**
 * A `fetch` that keeps the bridge's answer to each JSON-RPC request by method, and a stand-in's `answer` for it: the
 * recorded bytes with the request's id where the bridge's writer put its id (beside `"jsonrpc":"2.0"`).
 */
function recorder() {
  const templates = new Map<string, Template>();
  const recordingFetch: typeof fetch = async (input, init) => {
    const response = await abortIsolatingFetch(input, init);
    const request = typeof init?.body === "string" ? (JSON.parse(init.body) as { method?: string; id?: unknown }) : {};
    if (!request.method || request.id === undefined) return response;
    const body = await response.text();
    const marker = `"jsonrpc":"2.0","id":${JSON.stringify(request.id)}`;
    const at = body.indexOf(marker);
    if (at < 0) throw new Error(`ceilings: no id beside jsonrpc in the recorded ${request.method} answer`);
    const headers: Record<string, string> = { "content-type": response.headers.get("content-type") ?? "" };
    const session = response.headers.get("mcp-session-id");
    if (session) headers["mcp-session-id"] = session;
    templates.set(request.method, {
      status: response.status,
      headers,
      before: body.slice(0, at) + '"jsonrpc":"2.0","id":',
      after: body.slice(at + marker.length),
    });
    return new Response(body, { status: response.status, headers: response.headers });
  };
  const answer = (method: string, id: unknown) => {
    const template = templates.get(method);
    return template && { ...template, body: template.before + JSON.stringify(id) + template.after };
  };
  return { recordingFetch, templates, answer };
}

/** A JSON-RPC message's method and id, as far as a stand-in reads it. */
type Message = { method?: string; id?: unknown } | undefined;

/** Anything but a POST answered 405, as the bridge answers it (its status; no JSON-RPC error body): true if refused. */
function refusedUnlessPost(req: IncomingMessage, res: ServerResponse): boolean {
  if (req.method === "POST") return false;
  req.resume();
  res.writeHead(405, { allow: "POST" });
  res.end();
  return true;
}

/**
 * A stand-in answering each request with the recorded answer to its method, after `before` (nothing by default): 202
 * with no body for a notification, 405 for anything but a POST, and 500 for a request it has no recording of, so a
 * client never waits for an answer that will not come.
 */
function replayServer(recorded: ReturnType<typeof recorder>, before: () => Promise<unknown> = async () => {}) {
  return listen((req, res) => {
    void (async () => {
      if (refusedUnlessPost(req, res)) return;
      const request = (await readJson(req)) as Message;
      if (request?.id === undefined) {
        res.writeHead(202);
        return void res.end();
      }
      const answer = request.method === undefined ? undefined : recorded.answer(request.method, request.id);
      if (!answer) throw new Error(`no recorded answer to ${request.method}`);
      await before();
      res.writeHead(answer.status, { ...answer.headers, "content-length": Buffer.byteLength(answer.body) });
      res.end(answer.body);
    })().catch(() => {
      res.writeHead(500);
      res.end();
    });
  });
}

/**
 * The SDK's own `createMcpHandler` answering with the recorded `tools/call` result: requests checked, dispatched and
 * framed as on the bridge, its servers pooled and the Node request wrapped as the bridge's door does, a result's
 * bytes written in place of the SDK's stand-in body (ModernServers and ModernAnswer). Its tool costs nothing: no
 * token, router, database or answer writer.
 */
async function sdkHandlerServer(recorded: ReturnType<typeof recorder>) {
  const recordedCall = JSON.parse(recorded.answer("tools/call", 0)!.body) as { result: Record<string, unknown> };
  /** One exchange's result id, once its server sent it. */
  interface Exchange {
    id?: unknown;
  }
  const idle: Server[] = [];
  const exchangeOf = new WeakMap<Server, Exchange>();
  const make = () => {
    const server = new Server({ name: "sdk-handler", version: "0.0.0" }, { capabilities: { tools: {} } });
    server.setRequestHandler("tools/list", () => ({ tools: [] }));
    server.setRequestHandler("tools/call", () => recordedCall.result as never);
    const connect = server.connect.bind(server);
    server.connect = (transport) => {
      const exchange = exchangeOf.get(server);
      const send = transport.send.bind(transport);
      transport.send = (message, options) => {
        if (!exchange || !("result" in message)) return send(message, options);
        exchange.id = message.id;
        return send({ ...message, result: { "stand-in": true } }, options);
      };
      return connect(transport);
    };
    // As ModernServers: a server goes back to the pool once, however often its exchange's close is reported.
    server.onclose = () => {
      if (!idle.includes(server)) idle.push(server);
    };
    return server;
  };
  const handler = createMcpHandler(
    ({ authInfo }) => {
      const server = idle.pop() ?? make();
      const exchange = authInfo?.extra?.exchange as Exchange | undefined;
      if (exchange) exchangeOf.set(server, exchange);
      else exchangeOf.delete(server);
      return server;
    },
    { legacy: "reject" },
  );
  const listening = await listen((req, res) => {
    void (async () => {
      if (refusedUnlessPost(req, res)) return;
      const body = (await readJson(req)) as Message;
      const headers = new Headers();
      for (const [name, value] of Object.entries(req.headers)) {
        if (value === undefined) continue;
        for (const one of Array.isArray(value) ? value : [value]) headers.append(name, one);
      }
      // Only a tools/call's result is written from the recorded bytes; anything else is the SDK's own answer.
      const exchange: Exchange | undefined = body?.method === "tools/call" ? {} : undefined;
      const response = await handler.fetch(
        new Request(`http://${req.headers.host}${req.url ?? "/mcp"}`, { method: "POST", headers }),
        {
          parsedBody: body,
          authInfo: { token: "stand-in", clientId: "stand-in", scopes: [], extra: exchange ? { exchange } : {} },
        },
      );
      const out: Record<string, string> = {};
      response.headers.forEach((value, name) => (out[name] = value));
      const kept = exchange?.id !== undefined && response.status === 200;
      const bytes = kept
        ? Buffer.from(recorded.answer("tools/call", exchange.id)!.body)
        : Buffer.from(await response.arrayBuffer());
      out["content-length"] = String(bytes.length);
      res.writeHead(response.status, out);
      res.end(bytes);
    })().catch(() => {
      res.writeHead(500);
      res.end();
    });
  });
  return { ...listening, close: () => handler.close() };
}

export interface CeilingOptions {
  rounds: number;
  callsAtOne: number;
  callsAtSixteen: number;
  pageBlocks: number;
}

/** Per contender, its median ratio to the bare handler's calls/s at c=1 and c=16; `bareUs`: the bare handler's µs per call. */
type Ratios = Record<1 | 16, Record<string, number>> & { bareUs: Record<1 | 16, number> };

export interface Ceilings {
  /** bridge, replay, sdkHandler: the 2026-07-28 revision through the SDK 2.x client. */
  modern: Ratios;
  /**
   * bridge (read cache off), cachedBridge, replay, rowsThenReplay, rowsThenCachedBridge: MCP Streamable HTTP through
   * the SDK 1.x client.
   */
  session: Ratios;
  /** A first read costing a cached read plus reading its window's rows, nothing more (rowsThenCachedBridge). */
  firstReadAtBest: Record<1 | 16, number>;
  /**
   * The 2026-07-28 row, µs per call: what mnote's own work may take beside the SDK's handler and keep 75%
   * ((1/0.75 − 1/sdkHandler) × bare's time), and what it takes now ((1/bridge − 1/sdkHandler) × bare's time).
   */
  modernBudgetUs: Record<1 | 16, { allowed: number; now: number }>;
  markdown: string;
}

export async function runCeilings(options: CeilingOptions): Promise<Ceilings> {
  const { rounds, callsAtOne: atOne, callsAtSixteen: atSixteen } = options;
  const world = await benchWorld("ceilings");
  const page = await world.newPage(paragraphs(options.pageBlocks));
  const first = await createCaller(
    createToolsContext({ kernel: world.kernel, authorization: `Bearer ${world.token}` }),
  ).mnote.page.get(world.envelope("mnote.page.get", page, {}));
  const windowBlocks = (first.result as { window?: { count: number } } | null)?.window?.count ?? 1000;
  const bare = await startBareServer(world.kernel, windowBlocks);
  const bridge = await startBenchBridge(world);
  const uncachedBridge = await startBenchBridge(world, READ_CACHE_OFF);
  const authorization = `Bearer ${world.token}`;
  const modelArguments = { workspaceId: world.ws, documentId: page };

  type Call = () => Promise<unknown>;
  const bareCall: Call = async () => {
    const response = await fetch(bare.url, { method: "POST", body: JSON.stringify({ documentId: page }) });
    const body = (await response.json()) as { blocks: unknown[] };
    if (body.blocks.length !== windowBlocks) throw new Error("bare call failed");
  };
  /** A client's `page.get` of the page, checked for a full answer. */
  const toolCall =
    (client: { callTool: (params: { name: string; arguments: Record<string, unknown> }) => Promise<unknown> }): Call =>
    async () => {
      const out = (await client.callTool({ name: "mnote_page_get", arguments: modelArguments })) as {
        isError?: boolean;
        structuredContent?: unknown;
      };
      if (out.isError || JSON.stringify(out.structuredContent).length < 1000) throw new Error("call failed");
    };

  /** Median per-round ratio of each contender's calls/s to the bare handler's, at c=1 and c=16. */
  async function measure(contenders: Record<string, Call>): Promise<Ratios> {
    const calls: Record<string, Call> = { bare: bareCall, ...contenders };
    const names = Object.keys(calls);
    for (const name of names) await concurrent(50, 1, calls[name]!);
    const rates: Record<string, number[]> = {};
    for (let round = 0; round < rounds; round++) {
      for (const [level, count] of [
        [1, atOne],
        [16, atSixteen],
      ] as const) {
        for (const name of roundOrder(names, round)) {
          const { elapsedMs } = await concurrent(count, level, calls[name]!);
          (rates[`${name} c=${level}`] ??= []).push(count / (elapsedMs / 1000));
        }
      }
    }
    const at = (level: 1 | 16) => {
      const bareRates = rates[`bare c=${level}`]!;
      return Object.fromEntries(
        Object.keys(contenders).map((name) => [
          name,
          median(rates[`${name} c=${level}`]!.map((rate, round) => rate / bareRates[round]!)),
        ]),
      );
    };
    const bareUs = (level: 1 | 16) => 1e6 / median(rates[`bare c=${level}`]!);
    return { 1: at(1), 16: at(16), bareUs: { 1: bareUs(1), 16: bareUs(16) } };
  }

  // The 2026-07-28 revision, the SDK 2.x client negotiating it.
  const modernRecorder = recorder();
  const recording2026 = await mcp2026Client(bridge.url, authorization, modernRecorder.recordingFetch);
  await toolCall(recording2026)();
  await recording2026.close();
  const replay2026 = await replayServer(modernRecorder);
  const sdkHandler = await sdkHandlerServer(modernRecorder);
  const clients2026 = {
    bridge: await mcp2026Client(bridge.url, authorization),
    replay: await mcp2026Client(replay2026.url, authorization),
    sdkHandler: await mcp2026Client(sdkHandler.url, authorization),
  };
  const modern = await measure({
    bridge: toolCall(clients2026.bridge),
    replay: toolCall(clients2026.replay),
    sdkHandler: toolCall(clients2026.sdkHandler),
  });

  // MCP Streamable HTTP, the 2025 session and the SDK 1.x client.
  const sessionRecorder = recorder();
  const recording2025 = await mcpHttpClient(
    uncachedBridge.url,
    authorization,
    {},
    "mnote-bench",
    sessionRecorder.recordingFetch,
  );
  await toolCall(recording2025)();
  await recording2025.close();
  const replay2025 = await replayServer(sessionRecorder);
  /** The window's rows, as the bare handler reads them. */
  const readWindowRows = () => world.kernel.getBlockWindow(page, { from: 0, limit: windowBlocks });
  // The bare handler's own statements: the page's row too.
  const rowsThenReplay = await replayServer(sessionRecorder, async () => {
    await world.kernel.getPage(page);
    await readWindowRows();
  });
  const clients2025 = {
    bridge: await mcpHttpClient(uncachedBridge.url, authorization),
    cachedBridge: await mcpHttpClient(bridge.url, authorization),
    replay: await mcpHttpClient(replay2025.url, authorization),
    rowsThenReplay: await mcpHttpClient(rowsThenReplay.url, authorization),
    rowsThenCachedBridge: await mcpHttpClient(bridge.url, authorization),
  };
  const cachedCall = toolCall(clients2025.rowsThenCachedBridge);
  const session = await measure({
    bridge: toolCall(clients2025.bridge),
    cachedBridge: toolCall(clients2025.cachedBridge),
    replay: toolCall(clients2025.replay),
    rowsThenReplay: toolCall(clients2025.rowsThenReplay),
    // A first read takes the page's row from its checks' one read, as a cached read does: only the window's rows more.
    rowsThenCachedBridge: async () => {
      await readWindowRows();
      await cachedCall();
    },
  });
  const firstReadAtBest = { 1: session[1].rowsThenCachedBridge!, 16: session[16].rowsThenCachedBridge! };
  const budget = (level: 1 | 16) => {
    const handlerOnly = 1 / modern[level].sdkHandler!;
    return {
      allowed: (1 / 0.75 - handlerOnly) * modern.bareUs[level],
      now: (1 / modern[level].bridge! - handlerOnly) * modern.bareUs[level],
    };
  };
  const modernBudgetUs = { 1: budget(1), 16: budget(16) };

  for (const client of [...Object.values(clients2026), ...Object.values(clients2025)]) await client.close();
  for (const stand of [replay2026, sdkHandler, replay2025, rowsThenReplay]) stand.server.close();
  await sdkHandler.close();
  await bridge.close();
  await uncachedBridge.close();
  bare.server.close();
  await world.kernel.close();

  const both = (ratios: Ratios, name: string) => `${fmtPct(ratios[1][name]!)} / ${fmtPct(ratios[16][name]!)}`;
  // Below zero: the handler alone keeps less than 75%.
  const us = (value: number) => Math.round(value).toLocaleString("en-US");
  const markdown = table(
    ["row (goal)", "contender", "vs bare (c=1 / c=16)"],
    [
      ["2026-07-28, SDK 2.x client (≥ 75%)", "the bridge", both(modern, "bridge")],
      ["", "its answers replayed, nothing in front", both(modern, "replay")],
      ["", "**the SDK's `createMcpHandler` in front, a tool that costs nothing**", `**${both(modern, "sdkHandler")}**`],
      [
        "",
        "µs per call mnote's own work may take beside that handler and keep 75% (bare: " +
          `${us(modern.bareUs[1])} / ${us(modern.bareUs[16])} µs per call), and takes now`,
        `**${us(modernBudgetUs[1].allowed)} / ${us(modernBudgetUs[16].allowed)}**; ` +
          `now ${us(modernBudgetUs[1].now)} / ${us(modernBudgetUs[16].now)}`,
      ],
      ["MCP HTTP, SDK 1.x client, read cache off (≥ 65%)", "the bridge, read cache off", both(session, "bridge")],
      ["", "the bridge, read cache on", both(session, "cachedBridge")],
      ["", "its answers replayed, nothing in front", both(session, "replay")],
      [
        "",
        "the page's and window's rows read as the bare handler does, then the replay",
        both(session, "rowsThenReplay"),
      ],
      [
        "",
        "**the bridge, read cache on, the window's rows read before each call**: a first read at its cheapest",
        `**${fmtPct(firstReadAtBest[1])} / ${fmtPct(firstReadAtBest[16])}**`,
      ],
    ],
  );
  return { modern, session, firstReadAtBest, modernBudgetUs, markdown };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [rounds = 5, callsAtOne = 30, callsAtSixteen = 96] = process.argv.slice(2).map(Number);
  console.log((await runCeilings({ rounds, callsAtOne, callsAtSixteen, pageBlocks: 1000 })).markdown);
}
