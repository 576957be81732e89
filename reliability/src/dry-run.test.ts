import { BUSINESS_TABLES } from "@mnote/kernel";
import { DryRunResultSchema, isWorkspaceTool, TOOL_NAMES, type ToolName, TOOLS } from "@mnote/contract";
import type { RunningBridge } from "@mnote/hermes-bridge";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createWorld, postTool, startTestBridge, type World } from "./support";

/**
 * dryRun: every write tool, through the HTTP endpoint, with `dryRun: true`. Every business
 * table is compared before and after: only the audit log changes, by exactly one proposal
 * record, and the answer is the plan.
 */

let world: World;
let bridge: RunningBridge;

beforeAll(async () => {
  world = await createWorld();
  bridge = await startTestBridge(world.kernel);
  // A summary to update, so create_summary is dry-run both ways.
  const summary = await world.call(
    "mnote.artifact.create_summary",
    world.envelope("mnote.artifact.create_summary", { documentId: world.ids.privatePage }),
  );
  expect(summary.ok).toBe(true);
});
afterAll(async () => {
  await bridge?.close();
  await world?.close();
});

type Row = Record<string, unknown>;

async function dryRun(tool: ToolName, overrides: Record<string, unknown> = {}, token = world.tokens.owner) {
  const before = await world.kernel.admin.tableSnapshot();
  const envelope = world.envelope(tool, { ...overrides, dryRun: true });
  const answer = await postTool(bridge, tool, envelope, { authorization: `Bearer ${token}` });
  const after = await world.kernel.admin.tableSnapshot();

  expect(answer.status, answer.text.slice(0, 300)).toBe(200);
  const output = answer.json as { ok: boolean; result: unknown; audit: { effect: string; commandId: string | null } };
  expect(output.ok).toBe(true);
  expect(output.audit).toMatchObject({ effect: "dry_run", commandId: null });
  const plan = DryRunResultSchema.parse(output.result);
  expect(plan.commandName).toBe(TOOLS[tool].commandName);

  // Every business table but the audit log and its proposals index: identical, row for row.
  expect(Object.keys(after).sort()).toEqual([...BUSINESS_TABLES].sort());
  for (const table of BUSINESS_TABLES) {
    if (table !== "audit_log" && table !== "proposals")
      expect(after[table], `${tool} dry run changed ${table}`).toEqual(before[table]);
  }
  // The audit log: the rows it had, unchanged, and exactly one more: this call's proposal.
  const key = (row: Row) => JSON.stringify(row);
  const old = new Set((before.audit_log as Row[]).map(key));
  const added = (after.audit_log as Row[]).filter((row) => !old.has(key(row)));
  expect(after.audit_log!.length).toBe(before.audit_log!.length + 1);
  expect(added).toHaveLength(1);
  const record = added[0]!;
  expect(record).toMatchObject({
    tool_name: tool,
    effect: "dry_run",
    outcome: "proposal",
    command_id: null,
    error_code: null,
    idempotency_key: envelope.idempotencyKey,
    document_id: envelope.documentId,
    tool_call_id: envelope.toolCallId,
  });
  expect(JSON.parse(String(record.detail))).toMatchObject({ preview: plan });
  // Its proposals index: the rows it had, unchanged, and this record's, pending.
  const indexRows = new Set((after.proposals as Row[]).map(key));
  for (const row of before.proposals as Row[])
    expect(indexRows.has(key(row)), "a proposal's index row changed").toBe(true);
  expect(after.proposals!.length).toBe(before.proposals!.length + 1);
  const indexed = (after.proposals as Row[]).find(
    (row) => !(before.proposals as Row[]).some((old) => key(old) === key(row)),
  );
  // A dry run of an edit that already landed is born applied.
  const landed = plan.warnings.some((warning) => warning.code === "already_applied");
  expect(indexed).toMatchObject({
    audit_id: record.id,
    status: landed ? "applied" : "pending",
    idempotency_key: envelope.idempotencyKey,
  });
  return plan;
}

const WRITE_TOOLS = TOOL_NAMES.filter((tool) => TOOLS[tool].kind === "write");
/** The write tools on the page their envelope names (mnote.page.create's page is named by its key: page-create.test.ts). */
const PAGE_WRITE_TOOLS = WRITE_TOOLS.filter((tool) => !isWorkspaceTool(tool));

describe("dryRun over HTTP: only one proposal record, every other table unchanged", () => {
  it("covers every write tool", () => {
    expect(WRITE_TOOLS).toEqual([
      "mnote.page.save",
      "mnote.page.edit",
      "mnote.page.update_title",
      "mnote.page.update_options",
      "mnote.page.create",
      "mnote.artifact.create_summary",
      "mnote.artifact.create_ai_note",
      "mnote.comment.create",
    ]);
  });

  for (const tool of PAGE_WRITE_TOOLS) {
    it(`${tool}: the sample call`, async () => {
      await dryRun(tool);
    });
  }

  it("mnote.page.save: replace with inserts, deletes, updates and moves", async () => {
    const plan = await dryRun("mnote.page.save", {
      args: {
        mode: "replace",
        content: [
          { id: "p1", type: "paragraph", text: "First paragraph, edited" },
          { type: "todo", text: "new" },
          { id: "h1", type: "heading", level: 2, text: "Plan" },
        ],
      },
    });
    expect(plan.changes.map((c) => c.kind).sort()).toEqual(["insert", "move", "update", "update"].sort());
  });

  it("mnote.page.edit: replace, insert, delete and move by block id", async () => {
    const plan = await dryRun("mnote.page.edit", {
      args: {
        operations: [
          { op: "replace", blockId: "p1", text: "First paragraph, edited" },
          { op: "insert", after: "h1", blocks: [{ type: "todo", text: "new" }] },
          { op: "move", blockId: "h1", at: "end" },
          { op: "delete", blockIds: ["p1"] },
        ],
      },
    });
    expect(plan.changes.map((c) => c.kind)).toEqual(["update", "insert", "move", "delete"]);
  });

  it("mnote.page.update_options: a planned option (accepted by a dry run with a warning, refused for real)", async () => {
    const plan = await dryRun("mnote.page.update_options", { args: { options: { protectEditing: true } } });
    expect(plan.warnings.map((w) => w.code)).toContain("option_not_wired");
  });

  it("mnote.artifact.create_summary: updating the existing summary (private page, its owner)", async () => {
    await dryRun("mnote.artifact.create_summary", {
      documentId: world.ids.privatePage,
      args: { summary: "Updated summary" },
    });
  });

  it("every write tool: a dry run with the key of a write that already landed (warning, still no write)", async () => {
    for (const tool of PAGE_WRITE_TOOLS) {
      const landed = world.envelope(tool);
      expect((await world.call(tool, landed)).ok).toBe(true);
      const plan = await dryRun(tool, { idempotencyKey: landed.idempotencyKey });
      expect(plan.warnings.map((w) => w.code)).toContain("already_applied");
    }
  });

  it("every write tool: an agent's dry run where the workspace holds agent writes for approval", async () => {
    const agent = (
      await world.kernel.admin.createToken({ userId: world.ids.owner, holder: "agent", scopes: world.ALL })
    ).token;
    await world.kernel.admin.setWorkspacePolicy(world.ids.ws, { approvalRequired: true }, { by: "test-setup" });
    try {
      for (const tool of PAGE_WRITE_TOOLS) await dryRun(tool, {}, agent);
    } finally {
      await world.kernel.admin.setWorkspacePolicy(world.ids.ws, { approvalRequired: false }, { by: "test-setup" });
    }
  });
});
