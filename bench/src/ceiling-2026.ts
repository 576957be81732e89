/**
 * The most the 2026-07-28 row of section 2 could reach with the SDK 2.x client as it is (decision 0052): the client
 * against a stand-in that answers every request with the bridge's own recorded answer (the same bytes, its id put
 * in), at less than the bare handler's cost (no database, no router, no SDK server), calls/s against the bare
 * handler's, one process, c=1 and c=16, as section 2 measures:
 *
 *   node --expose-gc --import tsx src/ceiling-2026.ts [rounds] [calls at c=1] [calls at c=16]
 *
 * A stand-in answering faster than the bare handler bounds the ceiling from above: if the client against it stays
 * under 75% of the bare handler's calls/s, no server can lift the row to the goal with this client.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { createCaller, createToolsContext } from "@mnote/tools";
import { abortIsolatingFetch, mcp2026Client, startBenchBridge } from "./bridge";
import { concurrent, fmtPct, fmtRate, median, roundOrder } from "./stats";
import { startBareServer } from "./transports";
import { benchWorld, paragraphs } from "./world";

const [rounds = 5, atOne = 30, atSixteen = 96] = process.argv.slice(2).map(Number);
const world = await benchWorld("ceiling-2026");
const page = await world.newPage(paragraphs(1000));
const first = await createCaller(
  createToolsContext({ kernel: world.kernel, authorization: `Bearer ${world.token}` }),
).mnote.page.get(world.envelope("mnote.page.get", page, {}));
const windowBlocks = (first.result as { window?: { count: number } } | null)?.window?.count ?? 1000;
const bare = await startBareServer(world.kernel, windowBlocks);
const bridge = await startBenchBridge(world);
const authorization = `Bearer ${world.token}`;
const modelArguments = { workspaceId: world.ws, documentId: page };

/** The bridge's answer to each JSON-RPC method, as the client received it: status, content type, body. */
const recorded = new Map<string, { status: number; type: string; body: string; id: unknown }>();
const recordingFetch: typeof fetch = async (input, init) => {
  const response = await abortIsolatingFetch(input, init);
  const request = typeof init?.body === "string" ? (JSON.parse(init.body) as { method?: string; id?: unknown }) : {};
  if (!request.method || request.id === undefined) return response;
  const body = await response.text();
  recorded.set(request.method, {
    status: response.status,
    type: response.headers.get("content-type") ?? "application/json",
    body,
    id: request.id,
  });
  return new Response(body, { status: response.status, headers: response.headers });
};
const toBridge = await mcp2026Client(bridge.url, authorization, recordingFetch);
await toBridge.callTool({ name: "mnote_page_get", arguments: modelArguments });

/**
 * The stand-in: the recorded answer of the request's method, the request's id in place of the recorded one. The id
 * is the JSON-RPC message's own member, found where the bridge's writer puts it (beside `"jsonrpc":"2.0"`).
 */
const templates = new Map(
  [...recorded].map(([method, answer]) => {
    const marker = `"jsonrpc":"2.0","id":${JSON.stringify(answer.id)}`;
    const at = answer.body.indexOf(marker);
    if (at < 0) throw new Error(`ceiling: no id beside jsonrpc in the recorded ${method} answer`);
    return [
      method,
      {
        ...answer,
        before: answer.body.slice(0, at) + '"jsonrpc":"2.0","id":',
        after: answer.body.slice(at + marker.length),
      },
    ] as const;
  }),
);
const standIn = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (chunk: Buffer) => chunks.push(chunk));
  req.on("end", () => {
    const request = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { method?: string; id?: unknown };
    const answer = request.method === undefined ? undefined : templates.get(request.method);
    if (!answer || request.id === undefined) {
      res.writeHead(202);
      res.end();
      return;
    }
    const body = answer.before + JSON.stringify(request.id) + answer.after;
    res.writeHead(answer.status, { "content-type": answer.type, "content-length": Buffer.byteLength(body) });
    res.end(body);
  });
});
await new Promise<void>((resolve) => standIn.listen(0, "127.0.0.1", resolve));
const standInUrl = `http://127.0.0.1:${(standIn.address() as AddressInfo).port}`;
const toStandIn = await mcp2026Client(standInUrl, authorization);
console.log(`recorded answers of the bridge, replayed by the stand-in: ${[...templates.keys()].join(", ")}`);
const toBridgeTimed = await mcp2026Client(bridge.url, authorization);

const calls = {
  bare: async () => {
    const response = await fetch(bare.url, { method: "POST", body: JSON.stringify({ documentId: page }) });
    const body = (await response.json()) as { blocks: unknown[] };
    if (body.blocks.length !== windowBlocks) throw new Error("bare call failed");
  },
  bridge: async () => {
    const out = await toBridgeTimed.callTool({ name: "mnote_page_get", arguments: modelArguments });
    if (out.isError) throw new Error("bridge call failed");
  },
  standIn: async () => {
    const out = await toStandIn.callTool({ name: "mnote_page_get", arguments: modelArguments });
    if (out.isError || JSON.stringify(out.structuredContent).length < 1000) throw new Error("stand-in call failed");
  },
};
type Path = keyof typeof calls;
const paths = Object.keys(calls) as Path[];
for (const path of paths) await concurrent(50, 1, calls[path]);
const rates: Record<string, number[]> = {};
for (let round = 0; round < rounds; round++) {
  for (const [level, count] of [
    [1, atOne],
    [16, atSixteen],
  ] as const) {
    for (const path of roundOrder(paths, round)) {
      const { elapsedMs } = await concurrent(count, level, calls[path]);
      (rates[`${path} c=${level}`] ??= []).push(count / (elapsedMs / 1000));
    }
  }
}
for (const level of [1, 16]) {
  const ratio = (path: Path) =>
    median(rates[`${path} c=${level}`]!.map((rate, round) => rate / rates[`bare c=${level}`]![round]!));
  console.log(
    `c=${level}: bare ${fmtRate(median(rates[`bare c=${level}`]!))} calls/s; ` +
      `bridge (2026-07-28, SDK 2.x client) ${fmtPct(ratio("bridge"))} of bare; ` +
      `stand-in replaying the bridge's answers (same client) ${fmtPct(ratio("standIn"))} of bare`,
  );
}
await toBridge.close();
await toBridgeTimed.close();
await toStandIn.close();
standIn.close();
await bridge.close();
bare.server.close();
await world.kernel.close();
