import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { TOOL_NAMES, toProviderName, type ToolName, TOOLS } from "@mnote/contract";
import { type SqlKernel, openKernel } from "@mnote/kernel";
import { compiledEntry } from "@mnote/process/testing";
import { Client as ClientV2, StreamableHTTPClientTransport as HttpV2 } from "@modelcontextprotocol/client";
import { StdioClientTransport as StdioV2 } from "@modelcontextprotocol/client/stdio";
import { Client as ClientV1 } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport as StdioV1 } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport as HttpV1 } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startBridge, type RunningBridge } from "../http/server";
import {
  captureLogger,
  modelPageArgs,
  SAMPLE_ARGS,
  seedWorld,
  type SeededWorld,
  SCHEMA_VALIDATORS,
} from "../test-support";

/**
 * The same suite for both generations of the MCP TypeScript SDK client (1.x, `@modelcontextprotocol/sdk`, and 2.x,
 * `@modelcontextprotocol/client`, in its default 2025-era handshake and negotiating the 2026-07-28 revision) on both transports: the tool list and its
 * annotations, every tool, a refusal that is a result, a replay, the Hermes result form; over HTTP also a client
 * whose requests alternate between two bridges on one database (stateless: any instance answers any request).
 */
const ENTRY = fileURLToPath(new URL("../main.ts", import.meta.url));
/**
 * The stdio clients spawn the bridge's entry compiled once (`compiledEntry`, the recipe `pnpm build` uses for
 * `bin/mnote-bridge.mjs`); mcp-stdio.test.ts starts the bin itself over its build, as an MCP client's config does.
 */
let bin: string;

interface McpClient {
  listTools(): Promise<{ tools: Array<{ name: string; annotations?: Record<string, unknown> }> }>;
  callTool(params: { name: string; arguments: Record<string, unknown>; _meta?: Record<string, unknown> }): Promise<{
    content?: unknown;
    structuredContent?: unknown;
    isError?: boolean;
  }>;
  close(): Promise<void>;
}

type Transport = "http" | "stdio";
/** "2.x 2026-07-28": the 2.x client negotiating (`versionNegotiation: "auto"`), which gets the 2026-07-28 revision. */
type Generation = "1.x" | "2.x" | "2.x 2026-07-28";

let dir: string;
let databaseUrl: string;
let kernel: SqlKernel;
let world: SeededWorld;
const bridges: RunningBridge[] = [];
const clients: McpClient[] = [];

beforeAll(async () => {
  bin = await compiledEntry(ENTRY);
  dir = mkdtempSync(join(tmpdir(), "mnote-bridge-generations-"));
  databaseUrl = `file:${join(dir, "mnote.db")}`;
  kernel = await openKernel(databaseUrl);
  world = await seedWorld(kernel);
  // Two bridges on one database: the HTTP clients alternate between them request by request.
  for (let i = 0; i < 2; i++)
    bridges.push(await startBridge({ kernel, port: 0, logger: captureLogger().logger, rateLimit: null, env: {} }));
});
afterAll(async () => {
  await Promise.allSettled(clients.map((c) => c.close()));
  for (const bridge of bridges) await bridge.close();
  await kernel?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** A fetch that sends each request to the next bridge, as a plain round-robin balancer would. */
function roundRobinFetch(served: number[]): typeof fetch {
  let next = 0;
  return (input, init) => {
    const i = next++ % bridges.length;
    served[i] = (served[i] ?? 0) + 1;
    const url = new URL(input instanceof Request ? input.url : String(input));
    const target = new URL(bridges[i]!.url);
    url.host = target.host;
    // The Host header must be the one the bridge allows (DNS rebinding protection): fetch derives it from the URL.
    return fetch(url, init);
  };
}

async function connect(
  generation: Generation,
  transport: Transport,
  token: string,
  /** elicited: the client declares elicitation (form and URL) and records every elicitation the server asks for. */
  /** answers: over HTTP, the raw bytes of every JSON answer the client read. */
  options: { hermes?: boolean; served?: number[]; elicited?: unknown[]; origin?: string; answers?: Buffer[] } = {},
): Promise<McpClient> {
  const headers: Record<string, string> = { authorization: `Bearer ${token}` };
  if (options.hermes) headers["x-mnote-result-form"] = "hermes";
  if (options.origin) headers.origin = options.origin;
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    MNOTE_DATABASE_URL: databaseUrl,
    MNOTE_TOKEN: token,
    MNOTE_BRIDGE_RATE_LIMIT_RPS: "0",
    ...(options.hermes ? { MNOTE_RESULT_FORM: "hermes" } : {}),
  };
  const stdio = { command: process.execPath, args: [bin, "mcp", "--stdio"], env, stderr: "ignore" as const };
  const url = new URL(`${bridges[0]!.url}/mcp`);
  const answers = options.answers;
  const fetchOption = options.served
    ? { fetch: roundRobinFetch(options.served) }
    : answers
      ? {
          fetch: (async (input, init) => {
            const response = await fetch(input, init);
            if (response.headers.get("content-type")?.startsWith("application/json"))
              answers.push(Buffer.from(await response.clone().arrayBuffer()));
            return response;
          }) as typeof fetch,
        }
      : {};
  const info = { name: `generations-${generation}`, version: "0.0.1" };
  let client: McpClient;
  const elicited = options.elicited;
  const capabilities = elicited ? { capabilities: { elicitation: { form: {}, url: {} } } } : {};
  if (generation === "1.x") {
    const c = new ClientV1(info, { ...capabilities, jsonSchemaValidator: SCHEMA_VALIDATORS.v1 });
    if (elicited)
      c.setRequestHandler(ElicitRequestSchema, (request) => {
        elicited.push(request.params);
        return { action: "decline" };
      });
    await c.connect(
      transport === "http" ? new HttpV1(url, { requestInit: { headers }, ...fetchOption }) : new StdioV1(stdio),
    );
    client = c as unknown as McpClient;
  } else {
    const c = new ClientV2(info, {
      ...capabilities,
      jsonSchemaValidator: SCHEMA_VALIDATORS.v2,
      ...(generation === "2.x" ? {} : { versionNegotiation: { mode: "auto" as const } }),
    });
    // On 2025-era connections an elicitation/create request; on 2026-07-28 the client fulfils an input_required
    // result's elicitations through the same handler.
    if (elicited)
      c.setRequestHandler("elicitation/create", (request) => {
        elicited.push(request.params);
        return { action: "decline" };
      });
    await c.connect(
      transport === "http" ? new HttpV2(url, { requestInit: { headers }, ...fetchOption }) : new StdioV2(stdio),
    );
    client = c;
  }
  clients.push(client);
  return client;
}

const pageArgs = (tool?: ToolName) => modelPageArgs(world, tool);
type Envelope = {
  ok: boolean;
  toolName: string;
  error: { code: string } | null;
  audit: { commandId: string | null; effect: string };
};

describe.each([
  ["1.x", "http"],
  ["1.x", "stdio"],
  ["2.x", "http"],
  ["2.x", "stdio"],
  ["2.x 2026-07-28", "http"],
  ["2.x 2026-07-28", "stdio"],
] as Array<[Generation, Transport]>)("MCP SDK client %s over %s", (generation, transport) => {
  let owner: McpClient;
  let viewer: McpClient;
  /** The viewer with the Hermes result form (X-Mnote-Result-Form, or MNOTE_RESULT_FORM over stdio). */
  let hermes: McpClient;
  /** The owner on a client that declares elicitation (form and URL) and records what it is asked. */
  let elicitingOwner: McpClient;
  const elicited: unknown[] = [];
  const served: number[] = [];
  // All four clients connect at once: over stdio each is a bridge process of its own, started in parallel rather
  // than one after another inside the cases that use them.
  beforeAll(async () => {
    [owner, viewer, hermes, elicitingOwner] = await Promise.all([
      connect(generation, transport, world.tokens.owner, transport === "http" ? { served } : {}),
      connect(generation, transport, world.tokens.viewer),
      connect(generation, transport, world.tokens.viewer, { hermes: true }),
      connect(generation, transport, world.tokens.owner, { elicited }),
    ]);
  });

  it("negotiates the revision its generation asks for", () => {
    const version = (
      owner as unknown as { getNegotiatedProtocolVersion?: () => string | undefined }
    ).getNegotiatedProtocolVersion?.();
    if (generation === "2.x 2026-07-28") expect(version).toBe("2026-07-28");
    else if (generation === "2.x") expect(version).toBe("2025-11-25");
  });

  it("lists the seven tools; readOnlyHint only on reads, destructiveHint on page.save and page.edit, all idempotent", async () => {
    const { tools } = await owner.listTools();
    expect(tools.map((t) => t.name)).toEqual(TOOL_NAMES.map(toProviderName));
    for (const name of TOOL_NAMES) {
      const annotations = tools.find((t) => t.name === toProviderName(name))!.annotations!;
      expect(annotations.readOnlyHint, name).toBe(TOOLS[name].kind === "read");
      expect(annotations.destructiveHint, name).toBe(name === "mnote.page.save" || name === "mnote.page.edit");
      // Every write is keyed (a retry replays), so repeating a call changes nothing more.
      expect(annotations.idempotentHint, name).toBe(true);
      expect(annotations.openWorldHint, name).toBe(false);
    }
  });

  it("every tool answers its envelope as a result, never an MCP error", async () => {
    for (const name of TOOL_NAMES) {
      const result = await owner.callTool({
        name: toProviderName(name),
        arguments: { ...pageArgs(name), ...SAMPLE_ARGS[name] },
      });
      const output = result.structuredContent as Envelope;
      expect(result.isError, name).toBe(false);
      expect([output.toolName, output.ok, output.error]).toEqual([name, true, null]);
    }
    // Over HTTP the client's requests went to both bridges: neither kept anything the other needed.
    if (transport === "http") expect(served.every((count) => count > 1) && served.length === 2).toBe(true);
  });

  it("a page.get read twice is one envelope, as structuredContent and as its text; over HTTP in ASCII bytes", async () => {
    const documentId = `gen_${generation.replace(/\W/g, "")}_${transport}`;
    await kernel.admin.createPage({
      id: documentId,
      workspaceId: world.ids.ws,
      title: "Grüße…",
      blocks: [
        { id: "c1", type: "paragraph", text: '日本語のページ, an "error" word and a failed one' },
        { id: "c2", type: "paragraph", text: `😀 ${"long text ".repeat(40)}` },
      ],
      createdBy: world.ids.owner,
    });
    const answers: Buffer[] = [];
    const reader = await connect(generation, transport, world.tokens.owner, { answers });
    const args = { workspaceId: world.ids.ws, documentId };
    const expected = (await reader.callTool({ name: "mnote_page_get", arguments: args })).structuredContent as {
      result: unknown;
    };
    // Twice: the second read of the same page state is the read cache's, written from what the first made of it.
    for (let i = 0; i < 2; i++) {
      const result = await reader.callTool({ name: "mnote_page_get", arguments: args });
      const output = result.structuredContent as { ok: boolean; result: unknown };
      expect(output.ok).toBe(true);
      expect(output.result).toEqual(expected.result);
      expect(output.result).toMatchObject({
        title: "Grüße…",
        blocks: [{ text: expect.stringContaining("日本語") }, {}],
      });
      expect(JSON.parse((result.content as Array<{ text: string }>)[0]!.text)).toEqual(output);
    }
    if (transport === "http") {
      expect(answers.length).toBeGreaterThanOrEqual(3);
      for (const bytes of answers) expect(bytes.every((byte) => byte < 0x80)).toBe(true);
    }
  });

  it("a refusal is a result the model reads (not isError, which would count toward Hermes's breaker)", async () => {
    const result = await viewer.callTool({
      name: "mnote_page_save",
      arguments: { ...pageArgs(), ...SAMPLE_ARGS["mnote.page.save"] },
    });
    expect(result.isError).toBe(false);
    expect((result.structuredContent as Envelope).error?.code).toBe("mnote_tool_permission_denied");
  });

  it("a retry with the same idempotency key replays the first write", async () => {
    const key = `generations_${generation}_${transport}_${Math.random().toString(36).slice(2)}`;
    const call = () =>
      owner.callTool({
        name: "mnote_page_update_title",
        arguments: { ...pageArgs(), title: `Title ${key}` },
        _meta: { idempotencyKey: key },
      });
    const first = (await call()).structuredContent as Envelope;
    const retry = (await call()).structuredContent as Envelope;
    expect(retry.audit.commandId).toBe(first.audit.commandId);
    const outcomes = (await kernel.listAudit({ documentId: world.ids.page }))
      .filter((a) => a.commandId === first.audit.commandId)
      .map((a) => a.outcome)
      .sort();
    expect(outcomes).toEqual(["ok", "replayed"]);
  });

  it("the Hermes form: a success as text only, a refusal as structuredContent only", async () => {
    const read = await hermes.callTool({ name: "mnote_page_get", arguments: pageArgs() });
    expect(read.structuredContent).toBeUndefined();
    expect(JSON.parse((read.content as Array<{ text: string }>)[0]!.text).ok).toBe(true);
    const refused = await hermes.callTool({
      name: "mnote_page_save",
      arguments: { ...pageArgs(), ...SAMPLE_ARGS["mnote.page.save"] },
    });
    expect([refused.isError, refused.content]).toEqual([false, []]);
    expect((refused.structuredContent as Envelope).error?.code).toBe("mnote_tool_permission_denied");
  });

  it.runIf(transport === "http")("a foreign Origin is refused before anything is served, in every era", async () => {
    await expect(connect(generation, transport, world.tokens.owner, { origin: "http://evil.example" })).rejects.toThrow(
      /403|Forbidden|Origin/,
    );
  });

  it("a held write answers mnote_tool_approval_required as its result to a client that takes URL elicitations, and asks it nothing (decision 0028)", async () => {
    const result = await elicitingOwner.callTool({
      name: "mnote_page_update_title",
      arguments: {
        workspaceId: world.ids.heldWs,
        documentId: world.ids.heldPage,
        title: `Held ${generation} ${transport}`,
      },
    });
    expect(result.isError).toBe(false);
    const output = result.structuredContent as Envelope;
    expect([output.ok, output.error?.code]).toEqual([false, "mnote_tool_approval_required"]);
    expect(JSON.parse((result.content as Array<{ text: string }>)[0]!.text)).toEqual(output);
    expect(elicited).toEqual([]);
  });
});
