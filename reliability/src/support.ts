import { captureLogger } from "@mnote/hermes-bridge/testing";
import { builtBin } from "@mnote/process/testing";
import { SAMPLE_ARGS } from "@mnote/tools/testing";
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type Block,
  type Capability,
  isWorkspaceTool,
  OutputEnvelopeSchema,
  TOOL_ERROR_CODES,
  TOOL_ERROR_HTTP_STATUS,
  type OutputEnvelope,
  type ToolName,
  TOOLS,
} from "@mnote/contract";
import { startBridge, type RunningBridge } from "@mnote/hermes-bridge";
import { type Clock, openSqliteDriver, SqlKernel } from "@mnote/kernel";
import { callTool, createToolsContext } from "@mnote/tools";
import { expect } from "vitest";

/**
 * The world the suites attack, seeded with kernel.admin (the packages export no seeding helper):
 *
 * - workspace `ws` (agent writes not held): owner, editor, viewer, and `reader`, a viewer granted read on the private page;
 * - `page` (public) and `privatePage`, whose title and body carry SECRET; only owner (write) and reader (read) are granted;
 * - workspace `otherWs` owned by `outsider`, with `otherPage`, whose text carries OTHER_SECRET;
 * - `stranger`: a user in no workspace.
 *
 * Every user has an agent token (`tokens`, for the bridge, MCP and the CLI) and a person token
 * (`personTokens`, for the panel) with all three scopes.
 */
export async function createWorld(options: { file?: boolean; clock?: Clock } = {}) {
  let dir: string | null = null;
  let path = ":memory:";
  if (options.file) {
    dir = mkdtempSync(join(tmpdir(), "mnote-reliability-"));
    path = join(dir, "mnote.db");
  }
  const kernel = await SqlKernel.open(openSqliteDriver(path), { clock: options.clock });
  const { admin } = kernel;
  const suffix = Math.random().toString(36).slice(2, 8);
  const SECRET = `SECRET-${suffix}-c0ffee`;
  const OTHER_SECRET = `OTHERSECRET-${suffix}-beef`;
  const user = async (name: string) => (await admin.createUser({ id: `${name}_${suffix}`, name })).id;
  const ids = {
    owner: await user("owner"),
    editor: await user("editor"),
    viewer: await user("viewer"),
    reader: await user("reader"),
    outsider: await user("outsider"),
    stranger: await user("stranger"),
    ws: "",
    otherWs: "",
    page: "",
    privatePage: "",
    otherPage: "",
  };
  ids.ws = (
    await admin.createWorkspace({ id: `ws_${suffix}`, name: "Team", ownerId: ids.owner, approvalRequired: false })
  ).id;
  ids.otherWs = (
    await admin.createWorkspace({ id: `ows_${suffix}`, name: "Other", ownerId: ids.outsider, approvalRequired: false })
  ).id;
  await admin.addMember({ workspaceId: ids.ws, userId: ids.editor, role: "editor" });
  await admin.addMember({ workspaceId: ids.ws, userId: ids.viewer, role: "viewer" });
  await admin.addMember({ workspaceId: ids.ws, userId: ids.reader, role: "viewer" });
  const publicBlocks: Block[] = [
    { id: "h1", type: "heading", level: 1, text: "Plan" },
    { id: "p1", type: "paragraph", text: "First paragraph" },
  ];
  ids.page = (
    await admin.createPage({
      id: `doc_${suffix}`,
      workspaceId: ids.ws,
      title: "Project plan",
      blocks: publicBlocks,
      createdBy: ids.owner,
    })
  ).id;
  ids.privatePage = (
    await admin.createPage({
      id: `priv_${suffix}`,
      workspaceId: ids.ws,
      title: `Private ${SECRET}`,
      isPrivate: true,
      blocks: [
        { id: "s1", type: "paragraph", text: `secret body ${SECRET}` },
        { id: "s2", type: "code", language: "txt", text: `password=${SECRET}` },
      ],
      createdBy: ids.owner,
    })
  ).id;
  await admin.grantPage({ documentId: ids.privatePage, userId: ids.owner, access: "write" });
  await admin.grantPage({ documentId: ids.privatePage, userId: ids.reader, access: "read" });
  ids.otherPage = (
    await admin.createPage({
      id: `other_${suffix}`,
      workspaceId: ids.otherWs,
      title: `Elsewhere ${OTHER_SECRET}`,
      blocks: [{ id: "o1", type: "paragraph", text: `other body ${OTHER_SECRET}` }],
      createdBy: ids.outsider,
    })
  ).id;

  const ALL: Capability[] = ["page.read", "page.write", "artifact.write"];
  const token = async (userId: string, holder: "agent" | "person") =>
    (await admin.createToken({ userId, holder, scopes: ALL, label: "reliability" })).token;
  const tokens = {
    owner: await token(ids.owner, "agent"),
    editor: await token(ids.editor, "agent"),
    viewer: await token(ids.viewer, "agent"),
    reader: await token(ids.reader, "agent"),
    outsider: await token(ids.outsider, "agent"),
    stranger: await token(ids.stranger, "agent"),
  };
  /** The same users signed in to the panel: person tokens, for the panel's door only. */
  const personTokens = {
    owner: await token(ids.owner, "person"),
    editor: await token(ids.editor, "person"),
    viewer: await token(ids.viewer, "person"),
    reader: await token(ids.reader, "person"),
    outsider: await token(ids.outsider, "person"),
    stranger: await token(ids.stranger, "person"),
  };

  let n = 0;
  /** A complete, valid envelope for `tool` on the public page as the owner; override anything. */
  const envelope = (tool: ToolName, overrides: Record<string, unknown> = {}): Record<string, unknown> => {
    n++;
    const write = TOOLS[tool].kind === "write";
    return {
      toolName: tool,
      workspaceId: ids.ws,
      // A workspace tool's envelope names no page (issue 34).
      ...(isWorkspaceTool(tool) ? {} : { documentId: ids.page }),
      actorId: ids.owner,
      sessionId: "reliability_session",
      runId: "reliability_run",
      toolCallId: `call_${n}`,
      traceId: `trace_${n}`,
      capabilityScope: ALL,
      ...(write ? { idempotencyKey: `key_${n}_${suffix}`, dryRun: false } : {}),
      args: structuredClone(SAMPLE_ARGS[tool]),
      ...overrides,
    };
  };
  /** The router, called in process exactly as the bridge calls it (an agent door). */
  const call = (tool: string, input: unknown, token: string | null = tokens.owner) =>
    callTool(
      createToolsContext({ kernel, authorization: token ? `Bearer ${token}` : null, door: "agent" }),
      tool,
      input,
    );

  return {
    kernel,
    path,
    ids,
    tokens,
    personTokens,
    ALL,
    SECRET,
    OTHER_SECRET,
    envelope,
    call,
    async close() {
      await kernel.close();
      if (dir) rmSync(dir, { recursive: true, force: true });
    },
  };
}

export type World = Awaited<ReturnType<typeof createWorld>>;

/** Valid args for each tool. */
export { SAMPLE_ARGS };

/** A bridge logger whose JSON lines a test can read back. */
export { captureLogger };

/**
 * A real bridge on 127.0.0.1, port 0, rate limit and failed-authentication limit off (the suites
 * send far more than 20 calls a second, and hundreds of bad tokens from one address on purpose).
 */
export function startTestBridge(kernel: SqlKernel, logger = captureLogger().logger): Promise<RunningBridge> {
  return startBridge({ kernel, port: 0, host: "127.0.0.1", logger, rateLimit: null, authFailureLimit: null, env: {} });
}

export interface HttpAnswer {
  status: number;
  text: string;
  json: unknown;
}

/** POST a tool call to the bridge's HTTP endpoint. `body` is sent as is when it is a string or bytes. */
export async function postTool(
  bridge: RunningBridge,
  name: string,
  body: unknown,
  options: { authorization?: string | null; contentType?: string | null; headers?: Record<string, string> } = {},
): Promise<HttpAnswer> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.contentType !== null) headers["content-type"] = options.contentType ?? "application/json";
  if (options.authorization) headers.authorization = options.authorization;
  const response = await fetch(`${bridge.url}/v1/tools/${name}`, {
    method: "POST",
    headers,
    body: typeof body === "string" || body instanceof Uint8Array ? body : JSON.stringify(body),
  });
  const text = await response.text();
  let json: unknown = undefined;
  try {
    json = JSON.parse(text);
  } catch {
    // asserted by the caller
  }
  return { status: response.status, text, json };
}

/** Every business table but the audit log and its proposals index: what "nothing was written" compares. */
export async function businessSnapshot(kernel: SqlKernel) {
  const { audit_log: _audit, proposals: _proposals, ...rest } = await kernel.admin.tableSnapshot();
  return rest;
}

/** A contract failure envelope: the schema, a known code, no result, effect none, and (over HTTP) the code's status. */
export function expectContractFailure(output: unknown, status?: number): OutputEnvelope {
  const envelope = OutputEnvelopeSchema.parse(output);
  expect(envelope.ok).toBe(false);
  expect(TOOL_ERROR_CODES).toContain(envelope.error?.code);
  expect(envelope.result).toBeNull();
  expect(envelope.audit.effect).toBe("none");
  expect(envelope.audit.commandId).toBeNull();
  expect(Object.keys(envelope).sort()).toEqual(["audit", "error", "ok", "result", "toolCallId", "toolName", "traceId"]);
  if (status !== undefined) expect(status).toBe(TOOL_ERROR_HTTP_STATUS[envelope.error!.code]);
  return envelope;
}

/** A `mnote-bridge serve` child process, as an operator runs one: its URL, and how it ended if it did. */
export interface BridgeProcess {
  child: ChildProcess;
  url: string;
  port: number;
  /** Set when the process exits. */
  exited: { code: number | null; signal: NodeJS.Signals | null } | null;
  stderr(): string;
}

const APPS = join(import.meta.dirname, "..", "..", "apps");
let bridgeBin: Promise<string> | undefined;
let cliBin: Promise<string> | undefined;

/**
 * `bin/mnote-bridge.mjs` itself over its build (the recipe `pnpm build` uses), in a temporary copy of the package's
 * layout: what an operator runs, without reading or writing the checkout's `dist/` (a turbo build may be writing it).
 */
export const builtBridgeBin = () =>
  (bridgeBin ??= builtBin(
    join(APPS, "hermes-bridge", "bin", "mnote-bridge.mjs"),
    join(APPS, "hermes-bridge", "src", "main.ts"),
    "mnote-bridge.mjs",
  ));

/** `bin/mnote.mjs` itself over its build, likewise. */
export const builtCliBin = () =>
  (cliBin ??= builtBin(join(APPS, "cli", "bin", "mnote.mjs"), join(APPS, "cli", "src", "bin.ts"), "mnote.mjs"));

/** Starts `mnote-bridge serve` on a free loopback port (allow a busy machine 90 s). */
export async function startBridgeProcess(
  databaseUrl: string,
  env: Record<string, string> = {},
): Promise<BridgeProcess> {
  const child = spawn(process.execPath, [await builtBridgeBin(), "serve", "--port", "0", "--host", "127.0.0.1"], {
    env: {
      ...process.env,
      MNOTE_DATABASE_URL: databaseUrl,
      MNOTE_PG_POOL_MAX: "4",
      MNOTE_BRIDGE_LOG_LEVEL: "error",
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stderr.on("data", (chunk: Buffer) => (err += chunk.toString()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`bridge did not start in time\n${out}\n${err}`)), 90_000);
    const bridge: BridgeProcess = { child, url: "", port: 0, exited: null, stderr: () => err };
    child.once("exit", (code, signal) => {
      bridge.exited = { code, signal };
      clearTimeout(timer);
      reject(new Error(`bridge exited with ${code}\n${out}\n${err}`));
    });
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      const match = /listening on (http:\/\/127\.0\.0\.1:(\d+))/.exec(out);
      if (match && !bridge.url) {
        clearTimeout(timer);
        bridge.url = match[1]!;
        bridge.port = Number(match[2]);
        resolve(bridge);
      }
    });
  });
}

/** SIGTERM, then SIGKILL after 10 s. */
export function stopBridgeProcess(bridge: BridgeProcess): Promise<void> {
  return new Promise((resolve) => {
    if (bridge.child.exitCode !== null || bridge.child.signalCode !== null) return resolve();
    const timer = setTimeout(() => bridge.child.kill("SIGKILL"), 10_000);
    bridge.child.once("exit", () => {
      clearTimeout(timer);
      resolve();
    });
    bridge.child.kill("SIGTERM");
  });
}
