import {
  DryRunResultSchema,
  PAGE_CONTENT_IS_DATA,
  TOOL_ERROR_MESSAGES as M,
  TOOLS,
  type WriteToolName,
} from "@mnote/contract";
import { describe, expect, it } from "vitest";
import { payloadFingerprint } from "./fingerprint";
import {
  expectFailure,
  expectOk,
  expectOnlyAuditGrew,
  OTHER_WRITE_ARGS,
  PAGE_WRITE_TOOLS,
  snapshot,
  useWorlds,
  WRITE_TOOLS,
} from "./test-contract";
import { testKernels } from "./test-kernels";
import { SAMPLE_ARGS, type World } from "./test-support";

/**
 * Rule 7: a dry run runs every check the real call runs and answers the plan and the
 * diff (effect dry_run, commandId null). It writes nothing but one audit record: the
 * proposal with its args, preview, base revision, payload fingerprint and key.
 */

/** The preview each tool must answer for SAMPLE_ARGS on a fresh world (revision 1). */
const EXPECTED: Record<WriteToolName, (w: World) => { diff: unknown; changes: unknown; plan: RegExp }> = {
  "mnote.page.save": () => ({
    diff: [{ op: "append", blocks: 1 }],
    changes: [
      {
        kind: "insert",
        index: 2,
        block: { id: expect.stringMatching(/^b[0-9a-f]{15}$/), type: "paragraph", text: "added" },
      },
    ],
    plan: /add 1 block after the 2 on the page/,
  }),
  "mnote.page.edit": () => ({
    diff: [{ op: "insert", blocks: 1 }],
    changes: [
      {
        kind: "insert",
        index: 2,
        block: { id: expect.stringMatching(/^b[0-9a-f]{15}$/), type: "paragraph", text: "added by edit" },
      },
    ],
    plan: /1 edit to the page's blocks: the page goes from 2 blocks to 3/,
  }),
  "mnote.page.update_title": () => ({
    diff: [{ op: "set_title", fields: ["title"] }],
    changes: [{ kind: "set_title", before: "Project plan", after: "Renamed" }],
    plan: /rename/,
  }),
  "mnote.page.update_options": () => ({
    diff: [{ op: "set_options", fields: ["wideLayout"] }],
    changes: [{ kind: "set_option", key: "wideLayout", before: false, after: true }],
    plan: /wideLayout/,
  }),
  "mnote.page.create": () => ({
    diff: [
      { op: "set_title", fields: ["title"] },
      { op: "insert", blocks: 1 },
    ],
    changes: [
      { kind: "set_title", before: "", after: "Runbook" },
      {
        kind: "insert",
        index: 0,
        block: { id: expect.stringMatching(/^b[0-9a-f]{15}$/), type: "paragraph", text: "First step", marks: [] },
      },
    ],
    plan: /create a page "Runbook" with 1 block/,
  }),
  "mnote.artifact.create_summary": () => ({
    diff: [{ op: "create_summary" }],
    changes: [{ kind: "set_summary", before: null, after: "A summary" }],
    plan: /create the page's summary/,
  }),
  "mnote.artifact.create_ai_note": () => ({
    diff: [{ op: "create_ai_note" }],
    changes: [{ kind: "add_ai_note", content: "A note" }],
    plan: /ai_note/,
  }),
  "mnote.comment.create": () => ({
    diff: [{ op: "add_comment" }],
    changes: [{ kind: "add_comment", blockId: "p1", quote: "First", threadId: null, markdown: "Which **first**?" }],
    plan: /start a comment thread on block p1/,
  }),
};

const isPageTool = (tool: WriteToolName) => PAGE_WRITE_TOOLS.includes(tool);

describe.each(testKernels())("dry run ($name)", ({ open }) => {
  const world = useWorlds(open);

  it("a page.edit that keeps the page's size says so, not 'from 2 blocks to 2' (issue 36)", async () => {
    const w = await world();
    const out = await w.call(
      "mnote.page.edit",
      w.envelope(
        "mnote.page.edit",
        { operations: [{ op: "replace", blockId: "p1", text: "Reworded" }], baseRevision: 1 },
        { dryRun: true },
      ),
    );
    const preview = DryRunResultSchema.parse(expectOk(out, "dry_run"));
    expect(preview.plan[0]).toBe("1 edit to the page's blocks: the page keeps its 2 blocks");
  });

  describe.each(WRITE_TOOLS)("%s", (tool) => {
    it("answers the plan and diff, effect dry_run, commandId null; only the proposal is recorded", async () => {
      const w = await world();
      const before = await snapshot(w);
      const input = w.envelope(
        tool,
        { ...SAMPLE_ARGS[tool], baseRevision: 1 },
        { dryRun: true, idempotencyKey: "proposal_1" },
      );
      const out = await w.call(tool, input);
      const result = expectOk(out, "dry_run");
      expect(out.audit).toEqual({ effect: "dry_run", commandId: null, workspaceId: w.ids.ws, documentId: w.ids.page });
      const preview = DryRunResultSchema.parse(result);
      const expected = EXPECTED[tool](w);
      expect(preview).toEqual({
        dryRun: true,
        commandName: TOOLS[tool].commandName,
        baseRevision: 1,
        plan: expect.arrayContaining([expect.stringMatching(expected.plan)]),
        diff: expected.diff,
        changes: expected.changes,
        warnings: [],
        contentNotice: PAGE_CONTENT_IS_DATA,
      });
      if (isPageTool(tool)) expect(preview.plan).toContain("page revision 1 → 2");

      // Every business table is as it was; the audit log holds the proposal.
      const [record] = await expectOnlyAuditGrew(w, before);
      const parsedArgs = TOOLS[tool].args.parse({ ...SAMPLE_ARGS[tool], baseRevision: 1 }) as Record<string, unknown>;
      const { baseRevision: _base, ...payload } = parsedArgs;
      expect(record).toMatchObject({
        effect: "dry_run",
        outcome: "proposal",
        commandId: null,
        errorCode: null,
        idempotencyKey: "proposal_1",
        baseRevision: 1,
        payloadFingerprint: payloadFingerprint({
          toolName: tool,
          workspaceId: w.ids.ws,
          documentId: w.ids.page,
          args: payload,
        }),
        identity: {
          toolName: tool,
          actorId: w.ids.owner,
          toolCallId: input.toolCallId,
          runId: "run_1",
          sessionId: "session_1",
        },
      });
      // Body tools also keep where each insert or move goes (decision 0030), to merge the proposal later.
      const placements =
        tool === "mnote.page.save" || tool === "mnote.page.edit" ? { placements: expect.any(Array) } : {};
      expect(record!.detail).toEqual({ args: parsedArgs, preview: result, ...placements });
      // A new world, two whole-database snapshots and the call: seconds on PostgreSQL on a busy machine.
    }, 30_000);

    it("the proposal's preview carries the base revision even when the caller named none", async () => {
      const w = await world();
      const before = await snapshot(w);
      const out = await w.call(tool, w.envelope(tool, SAMPLE_ARGS[tool], { dryRun: true }));
      expect(expectOk<{ baseRevision: number }>(out, "dry_run").baseRevision).toBe(1);
      const [record] = await expectOnlyAuditGrew(w, before);
      expect((record!.detail as { preview: { baseRevision: number } }).preview.baseRevision).toBe(1);
    });

    it("runs the permission checks: a viewer's and a stranger's dry runs are refused", async () => {
      const w = await world();
      const before = await snapshot(w);
      const viewer = await w.call(
        tool,
        w.envelope(tool, SAMPLE_ARGS[tool], { dryRun: true, actorId: w.ids.viewer }),
        w.tokens.viewer,
      );
      expectFailure(
        viewer,
        "mnote_tool_permission_denied",
        isPageTool(tool) ? M.pageWriteDenied : M.artifactWriteDenied,
      );
      const stranger = await w.call(
        tool,
        w.envelope(tool, SAMPLE_ARGS[tool], { dryRun: true, actorId: w.ids.stranger }),
        w.tokens.stranger,
      );
      expectFailure(stranger, "mnote_tool_permission_denied", M.pageUnreadable);
      const unauthenticated = await w.call(tool, w.envelope(tool, SAMPLE_ARGS[tool], { dryRun: true }), null);
      expectFailure(unauthenticated, "mnote_tool_unauthenticated");
      const records = await expectOnlyAuditGrew(w, before, 3);
      expect(records.map((r) => r.outcome)).toEqual(["failed", "failed", "failed"]);
    });

    it("runs the revision check: a stale baseRevision is a conflict", async () => {
      const w = await world();
      expectOk(await w.call("mnote.page.update_title", w.envelope("mnote.page.update_title", { title: "Moved on" })));
      const before = await snapshot(w);
      const out = await w.call(tool, w.envelope(tool, { ...SAMPLE_ARGS[tool], baseRevision: 1 }, { dryRun: true }));
      expectFailure(out, "mnote_tool_conflict", M.conflict);
      await expectOnlyAuditGrew(w, before);
    });

    it("runs validation and the idempotency check", async () => {
      const w = await world();
      expectOk(await w.call(tool, w.envelope(tool, SAMPLE_ARGS[tool], { idempotencyKey: "used" })));
      const before = await snapshot(w);
      expectFailure(
        await w.call(tool, w.envelope(tool, OTHER_WRITE_ARGS[tool], { dryRun: true, idempotencyKey: "used" })),
        "mnote_tool_idempotency_conflict",
      );
      expectFailure(
        await w.call(tool, { ...w.envelope(tool, SAMPLE_ARGS[tool], { dryRun: true }), args: { nope: 1 } }),
        "mnote_tool_invalid_input",
      );
      await expectOnlyAuditGrew(w, before, 2);
    });

    it("with a key already applied (same payload) it still previews, with an already_applied warning", async () => {
      const w = await world();
      const applied = await w.call(tool, w.envelope(tool, SAMPLE_ARGS[tool], { idempotencyKey: "done" }));
      expectOk(applied, "write");
      const before = await snapshot(w);
      const out = await w.call(tool, w.envelope(tool, SAMPLE_ARGS[tool], { idempotencyKey: "done", dryRun: true }));
      const preview = DryRunResultSchema.parse(expectOk(out, "dry_run"));
      expect(preview.warnings).toEqual([
        expect.objectContaining({
          code: "already_applied",
          message: expect.stringContaining(applied.audit.commandId!),
        }),
      ]);
      await expectOnlyAuditGrew(w, before);
    });

    it("an agent's dry run is answered even where agent writes wait for approval", async () => {
      const w = await world();
      await w.kernel.admin.setWorkspacePolicy(w.ids.ws, { approvalRequired: true }, { by: "test-setup" });
      const before = await snapshot(w);
      expectOk(
        await w.call(tool, w.envelope(tool, SAMPLE_ARGS[tool], { dryRun: true }), w.tokens.ownerAgent),
        "dry_run",
      );
      const [record] = await expectOnlyAuditGrew(w, before);
      expect(record).toMatchObject({ outcome: "proposal", identity: { holder: "agent" } });
    });
  });

  it("walks every write tool on one page: all business tables equal before and after, one proposal each", async () => {
    const w = await world();
    // Give the page a summary and a note first, so the dry runs have something to compare against.
    for (const tool of ["mnote.artifact.create_summary", "mnote.artifact.create_ai_note"] as const) {
      expectOk(await w.call(tool, w.envelope(tool, OTHER_WRITE_ARGS[tool])));
    }
    const before = await snapshot(w);
    for (const tool of WRITE_TOOLS)
      expectOk(await w.call(tool, w.envelope(tool, SAMPLE_ARGS[tool], { dryRun: true })), "dry_run");
    const records = await expectOnlyAuditGrew(w, before, WRITE_TOOLS.length);
    expect(records.map((r) => [r.identity.toolName, r.outcome, r.commandId])).toEqual(
      WRITE_TOOLS.map((t) => [t, "proposal", null]),
    );
    // The summary preview compares with what is there.
    const summary = records.find((r) => r.identity.toolName === "mnote.artifact.create_summary")!;
    expect((summary.detail as { preview: { diff: unknown; changes: unknown } }).preview).toMatchObject({
      diff: [{ op: "update_summary" }],
      changes: [{ kind: "set_summary", before: "Another summary", after: "A summary" }],
    });
  });
});
