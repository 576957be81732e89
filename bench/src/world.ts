import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Block, Capability, ToolName } from "@mnote/contract";
import { openSqliteDriver, type SqlDriver, SqlKernel } from "@mnote/kernel";
import { callTool, createToolsContext, type ToolsSettings } from "@mnote/tools";

export const ALL_SCOPES: Capability[] = ["page.read", "page.write", "artifact.write"];

/** The kernel's driver, for a benchmark's own statements (counting rows, loading data, dropping triggers). */
export const driverOf = (kernel: SqlKernel) => (kernel as unknown as { db: SqlDriver }).db;

/** The temporary directories to remove at exit: one exit listener for all (a run makes more than ten). */
const tempDirs: string[] = [];

/** A temporary directory removed at exit. */
export function tempDir(label: string): string {
  const dir = mkdtempSync(join(tmpdir(), `mnote-bench-${label}-`));
  if (tempDirs.length === 0)
    process.once("exit", () => {
      for (const made of tempDirs) rmSync(made, { recursive: true, force: true });
    });
  tempDirs.push(dir);
  return dir;
}

export function paragraphs(count: number, prefix = "b"): Block[] {
  return Array.from({ length: count }, (_, i) => ({
    id: `${prefix}${i}`,
    type: "paragraph" as const,
    text: `Paragraph ${i} of the benchmark page: some ordinary words so a block is the size of a real one.`,
  }));
}

/**
 * A SQLite file kernel (WAL, synchronous=NORMAL, the production driver) with one
 * owner, a workspace that does not hold writes for approval, and agent tokens.
 */
export async function benchWorld(label: string, settings: Partial<ToolsSettings> = {}) {
  const dir = tempDir(label);
  const path = join(dir, "mnote.db");
  const kernel = await SqlKernel.open(openSqliteDriver(path));
  const owner = (await kernel.admin.createUser({ id: "bench_owner", name: "Bench owner" })).id;
  const ws = (
    await kernel.admin.createWorkspace({ id: "bench_ws", name: "Bench", ownerId: owner, approvalRequired: false })
  ).id;
  // An agent token: the bench calls through the agent doors (router as the bridge calls it, MCP);
  // the workspace does not hold writes, so they are applied as a person's would be.
  const { token } = await kernel.admin.createToken({
    userId: owner,
    holder: "agent",
    scopes: ALL_SCOPES,
    label: "bench",
  });
  const agent = (
    await kernel.admin.createToken({ userId: owner, holder: "agent", scopes: ALL_SCOPES, label: "bench agent" })
  ).token;
  let pages = 0;
  const newPage = async (blocks: Block[] = paragraphs(3)) =>
    (
      await kernel.admin.createPage({
        id: `bench_page_${++pages}`,
        workspaceId: ws,
        title: "Bench page",
        blocks,
        createdBy: owner,
      })
    ).id;
  let calls = 0;
  const envelope = (
    tool: ToolName,
    documentId: string,
    args: Record<string, unknown>,
    extra: Record<string, unknown> = {},
  ) => {
    calls++;
    const write = tool !== "mnote.page.get";
    return {
      toolName: tool,
      workspaceId: ws,
      documentId,
      actorId: owner,
      sessionId: "bench_session",
      runId: "bench_run",
      toolCallId: `bench_call_${calls}`,
      traceId: `bench_trace_${calls}`,
      capabilityScope: ALL_SCOPES,
      ...(write ? { idempotencyKey: `bench_key_${calls}_${label}`, dryRun: false } : {}),
      args,
      ...extra,
    };
  };
  /** One router call exactly as a transport makes it: a fresh tools context, callTool (settings: the router's, e.g. the read cache). */
  const call = (tool: ToolName, envelopeValue: unknown, authorization = `Bearer ${token}`) =>
    callTool(createToolsContext({ kernel, authorization, settings }), tool, envelopeValue);
  return {
    dir,
    path,
    databaseUrl: `file:${path}`,
    kernel,
    owner,
    ws,
    token,
    agent,
    newPage,
    envelope,
    call,
  };
}

export type BenchWorld = Awaited<ReturnType<typeof benchWorld>>;

export function assertOk(envelope: { ok: boolean; error: { code: string; message: string } | null }, what: string) {
  if (!envelope.ok) throw new Error(`${what} failed: ${envelope.error?.code} ${envelope.error?.message}`);
}
