import { setMaxListeners } from "node:events";
import { createLogger, startBridge } from "@mnote/hermes-bridge";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { Client as ClientV2, StreamableHTTPClientTransport as HttpV2 } from "@modelcontextprotocol/client";
import { ALL_SCOPES, type BenchWorld } from "./world";

/** A pino logger that formats every line (the bridge's real cost) and drops it (no terminal I/O in the numbers). */
export const discardingLogger = () => createLogger({ destination: { write: () => undefined } });

/** A bridge on the world's kernel, in this process, on a free port, rate limit off, log lines formatted and dropped;
 * `env`: its configuration. */
export function startBenchBridge(world: Pick<BenchWorld, "kernel">, env: Record<string, string> = {}) {
  return startBridge({
    kernel: world.kernel,
    port: 0,
    host: "127.0.0.1",
    logger: discardingLogger(),
    rateLimit: null,
    env,
  });
}

/** The configuration of a bridge that keeps nothing from one read for the next (decision 0029). */
export const READ_CACHE_OFF = { MNOTE_READ_CACHE_MB: "0" };

/**
 * `fetch` with a signal of its own per request, following the caller's (aborted with it) and let go when the
 * request settles. The MCP SDK 1.x client passes one AbortSignal, its transport's, to every POST; Node's fetch
 * (undici) adds an abort listener to that signal per request and removes it only when GC finalizes the request,
 * so one long-lived client piles up thousands of listeners between collections: the MaxListenersExceededWarning
 * past 1,500, a copy of the whole listener list on every later request (undici's `getEventListeners` check),
 * and memory the soak line counted against the bridge. The same fix as samanhappy/mcphub#1062. The bench's
 * clients use it so the numbers are the bridge's; the SDK client is otherwise unchanged.
 */
export const abortIsolatingFetch: typeof fetch = async (input, init) => {
  const outer = init?.signal;
  if (!outer) return fetch(input, init);
  const own = new AbortController();
  if (outer.aborted) own.abort(outer.reason);
  const follow = () => own.abort(outer.reason);
  // Now one listener per request in flight (16 at c=16), above the default warning limit of 10.
  setMaxListeners(256, outer);
  outer.addEventListener("abort", follow, { once: true });
  try {
    return await fetch(input, { ...init, signal: own.signal });
  } finally {
    outer.removeEventListener("abort", follow);
  }
};

/**
 * The MCP SDK's client over Streamable HTTP to the bridge's `/mcp`, as `authorization` (plus `headers`); `fetchFn`: how
 * it sends (see abortIsolatingFetch).
 */
export async function mcpHttpClient(
  bridgeUrl: string,
  authorization: string,
  headers: Record<string, string> = {},
  name = "mnote-bench",
  fetchFn: typeof fetch = abortIsolatingFetch,
): Promise<Client> {
  const client = new Client({ name, version: "0.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${bridgeUrl}/mcp`), {
      requestInit: { headers: { Authorization: authorization, ...headers } },
      fetch: fetchFn,
    }),
  );
  return client;
}

/**
 * An SDK 2.x client negotiating the 2026-07-28 revision with the server at `url` (its `/mcp`); throws if it settled on
 * another. `fetchFn`: how it sends (by default one abort signal per request, see abortIsolatingFetch).
 */
export async function mcp2026Client(url: string, authorization: string, fetchFn: typeof fetch = abortIsolatingFetch) {
  const client = new ClientV2({ name: "mnote-bench", version: "0.0.0" }, { versionNegotiation: { mode: "auto" } });
  await client.connect(
    new HttpV2(new URL(`${url}/mcp`), { requestInit: { headers: { authorization } }, fetch: fetchFn }),
  );
  if (client.getNegotiatedProtocolVersion() !== "2026-07-28") throw new Error("2.x client did not negotiate 2026");
  return client;
}

/** The ids a bridge in another process answers for (soak, CPU split): its world's workspace, owner and page. */
export interface RemotePage {
  ws: string;
  owner: string;
  page: string;
}

let remoteCalls = 0;
/** A `mnote.page.get` envelope for a page of another process's world, a new tool-call id each time. */
export function remotePageGetEnvelope(remote: RemotePage) {
  remoteCalls++;
  return {
    toolName: "mnote.page.get",
    workspaceId: remote.ws,
    documentId: remote.page,
    actorId: remote.owner,
    sessionId: "bench_session",
    runId: "bench_run",
    toolCallId: `remote_call_${remoteCalls}`,
    traceId: `remote_trace_${remoteCalls}`,
    capabilityScope: ALL_SCOPES,
    args: {},
  };
}

/** One `mnote.page.get` envelope through the bridge's HTTP tool endpoint; throws unless it answers 200 with ok. */
export async function httpPageGet(bridgeUrl: string, envelope: unknown, authorization: string) {
  const response = await fetch(`${bridgeUrl}/v1/tools/mnote.page.get`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization },
    body: JSON.stringify(envelope),
  });
  const body = (await response.json()) as { ok: boolean };
  if (response.status !== 200 || !body.ok) throw new Error(`http call failed: ${response.status}`);
}
