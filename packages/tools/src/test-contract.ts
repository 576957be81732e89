import {
  type OutputEnvelope,
  OutputEnvelopeSchema,
  outputEnvelopeSchema,
  isWorkspaceTool,
  type ToolErrorCode,
  TOOL_NAMES,
  TOOLS,
  type ToolName,
  toolResultSchema,
  WRITE_TOOL_NAMES,
  type WriteToolName,
} from "@mnote/contract";
import type { AuditRecord, KernelOptions, SqlKernel } from "@mnote/kernel";
import { afterEach, beforeAll, expect } from "vitest";
import { createWorld, type World } from "./test-support";

/**
 * Assertions shared by the contract test files. Each one checks real values, so a
 * regression in the envelope, the audit log or the "nothing written" rule fails here.
 */

/**
 * The write tools on the page their envelope names, from the contract (`WriteToolName` is derived from each tool's
 * definition). A workspace tool names no page: mnote.page.create makes the page its key names (decision 0046,
 * page-create.test.ts runs its contract) and mnote.workspace.search reads the workspace (workspace-search.test.ts).
 */
export const WRITE_TOOLS: WriteToolName[] = WRITE_TOOL_NAMES.filter((name) => !isWorkspaceTool(name));
/** The tools that act on the page the envelope names (every tool but the workspace tools). */
export const PAGE_TOOLS: ToolName[] = TOOL_NAMES.filter((name) => !isWorkspaceTool(name));
export const PAGE_WRITE_TOOLS = WRITE_TOOLS.filter((name) => TOOLS[name].capability === "page.write");
export const ARTIFACT_WRITE_TOOLS = WRITE_TOOLS.filter((name) => TOOLS[name].capability === "artifact.write");

/**
 * How long opening the first kernel of a file may take. SQLite opens in milliseconds; an
 * embedded PostgreSQL (PGlite) loads for seconds the first time, which must not count
 * against the first test's 5 s.
 */
export const KERNEL_WARMUP_MS = 120_000;

/** Fresh worlds on one kernel, closed after each test. */
export function useWorlds(open: (options?: KernelOptions) => Promise<SqlKernel>) {
  const opened: World[] = [];
  beforeAll(async () => {
    await (await open()).close();
  }, KERNEL_WARMUP_MS);
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((world) => world.kernel.close()));
  });
  /** A fresh world; `options.clock` for a test that passes time. */
  return async (options?: KernelOptions) => {
    const world = await createWorld(() => open(options));
    opened.push(world);
    return world;
  };
}

// Built once per tool: zod compiles a schema on its first parse, so a fresh one per call is slow.
const envelopeSchemas = new Map<ToolName, ReturnType<typeof outputEnvelopeSchema>>();
const envelopeSchemaFor = (name: ToolName) => {
  let schema = envelopeSchemas.get(name);
  if (!schema) envelopeSchemas.set(name, (schema = outputEnvelopeSchema(toolResultSchema(name))));
  return schema;
};

/** The envelope has exactly the contract's keys (§3) and is consistent with itself. */
export function expectEnvelopeShape(envelope: OutputEnvelope, toolName?: ToolName) {
  OutputEnvelopeSchema.parse(envelope);
  if (toolName) envelopeSchemaFor(toolName).parse(envelope);
  expect(Object.keys(envelope).sort()).toEqual(["audit", "error", "ok", "result", "toolCallId", "toolName", "traceId"]);
  expect(Object.keys(envelope.audit).sort()).toEqual(["commandId", "documentId", "effect", "workspaceId"]);
  if (envelope.ok) {
    expect(envelope.error).toBeNull();
    expect(envelope.result).not.toBeNull();
    expect(["read", "write", "dry_run"]).toContain(envelope.audit.effect);
    if (envelope.audit.effect === "write") expect(envelope.audit.commandId).toMatch(/\S/);
    else expect(envelope.audit.commandId).toBeNull();
  } else {
    expect(envelope.result).toBeNull();
    expect(Object.keys(envelope.error!).sort()).toEqual(["code", "message"]);
    expect(envelope.audit).toMatchObject({ effect: "none", commandId: null });
  }
}

/** A successful envelope with the given effect; returns its result. */
export function expectOk<R = Record<string, unknown>>(
  envelope: OutputEnvelope,
  effect?: "read" | "write" | "dry_run",
): R {
  if (!envelope.ok) expect.fail(`expected ok, got ${JSON.stringify(envelope.error)}`);
  expectEnvelopeShape(envelope);
  if (effect) expect(envelope.audit.effect).toBe(effect);
  return envelope.result as R;
}

/** A failure envelope with this code (and message, exact string or pattern). */
export function expectFailure(envelope: OutputEnvelope, code: ToolErrorCode, message?: string | RegExp) {
  expectEnvelopeShape(envelope);
  expect(envelope.ok, JSON.stringify(envelope.result)).toBe(false);
  expect(envelope.error?.code, envelope.error?.message).toBe(code);
  if (typeof message === "string") expect(envelope.error!.message).toBe(message);
  else if (message) expect(envelope.error!.message).toMatch(message);
}

export type Snapshot = Record<string, unknown[]>;

export const snapshot = (world: World): Promise<Snapshot> => world.kernel.admin.tableSnapshot();

function lastAuditId(snap: Snapshot): number {
  return Math.max(0, ...snap.audit_log!.map((row) => Number((row as { id: number | string }).id)));
}

/**
 * Every business table is as it was in `before`, except the audit log, which grew by
 * exactly `records`, and its proposals index, which may only have gained rows for those
 * records (a dry run, a held write). Returns the new audit records, oldest first.
 */
export async function expectOnlyAuditGrew(world: World, before: Snapshot, records = 1): Promise<AuditRecord[]> {
  const after = await snapshot(world);
  for (const table of Object.keys(before)) {
    if (table === "audit_log" || table === "proposals") continue;
    expect(after[table], `table ${table} changed`).toEqual(before[table]);
  }
  expect(after.audit_log!.length - before.audit_log!.length).toBe(records);
  const auditId = (row: unknown) => Number((row as { audit_id: number | string }).audit_id);
  const last = lastAuditId(before);
  expect(
    after.proposals!.filter((row) => auditId(row) <= last),
    "proposals decided",
  ).toEqual(before.proposals);
  return newAudit(world, before);
}

/** Audit records appended since `before`, oldest first. */
export async function newAudit(world: World, before: Snapshot): Promise<AuditRecord[]> {
  return (await world.kernel.listAudit({ afterId: lastAuditId(before), limit: 1000 })).reverse();
}

export async function revisionOf(world: World, documentId = world.ids.page): Promise<number> {
  return (await world.kernel.getPage(documentId))!.revision;
}

/** A second, different payload per write tool (for idempotency conflicts). */
export const OTHER_WRITE_ARGS: Record<WriteToolName, Record<string, unknown>> = {
  "mnote.page.save": { content: [{ type: "paragraph", text: "something else" }], mode: "append" },
  "mnote.page.edit": { operations: [{ op: "insert", at: "start", blocks: [{ type: "quote", text: "another edit" }] }] },
  "mnote.page.update_title": { title: "Another title" },
  "mnote.page.update_options": { options: { smallText: true } },
  "mnote.page.create": { title: "Another page", markdown: "Something else" },
  "mnote.artifact.create_summary": { summary: "Another summary" },
  "mnote.artifact.create_ai_note": { content: "Another note" },
  "mnote.comment.create": { blockId: "p1", markdown: "Another comment" },
};
