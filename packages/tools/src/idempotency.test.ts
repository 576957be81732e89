import { TOOL_ERROR_MESSAGES as M, type OutputEnvelope, type WriteToolName } from "@mnote/contract";
import { ManualClock } from "@mnote/kernel";
import { describe, expect, it } from "vitest";
import { DEFAULT_SETTINGS } from "./context";
import {
  expectFailure,
  expectOk,
  expectOnlyAuditGrew,
  OTHER_WRITE_ARGS,
  PAGE_WRITE_TOOLS,
  revisionOf,
  snapshot,
  useWorlds,
  WRITE_TOOLS,
} from "./test-contract";
import { testKernels } from "./test-kernels";
import { SAMPLE_ARGS, type World } from "./test-support";

/**
 * Rule 6: the key's scope is (workspace, actor, tool, key). Same key and payload →
 * the stored result replayed, no second command. Same key, other payload → conflict,
 * nothing written. Concurrent calls with one key → one command. Replay re-checks
 * access. The retention window is a setting.
 */

/** The same payload as SAMPLE_ARGS, spelled differently (key order, whitespace the schema trims). */
const EQUIVALENT_ARGS: Record<WriteToolName, Record<string, unknown>> = {
  "mnote.page.save": { mode: "append", content: [{ text: "added", type: "paragraph" }] },
  "mnote.page.edit": {
    operations: [{ blocks: [{ text: "added by edit", type: "paragraph" }], at: "end", op: "insert" }],
  },
  "mnote.page.update_title": { title: "   Renamed  " },
  "mnote.page.update_options": { options: { wideLayout: true } },
  "mnote.page.create": { blocks: [{ text: "First step", type: "paragraph" }], title: " Runbook ", private: false },
  "mnote.artifact.create_summary": { summary: "A summary   " },
  "mnote.artifact.create_ai_note": { content: "\tA note" },
  "mnote.comment.create": { markdown: "Which **first**?  ", quote: "First", blockId: "p1" },
};

const isPageTool = (tool: WriteToolName) => PAGE_WRITE_TOOLS.includes(tool);
/** The summary and AI notes are nodes with a reference edge; comments have tables of their own. */
const isArtifactNode = (tool: WriteToolName) => tool.startsWith("mnote.artifact.");
/** SAMPLE_ARGS on the private page: a comment names a block of that page. */
const privatePageArgs = (tool: WriteToolName) =>
  tool === "mnote.comment.create" ? { blockId: "s1", markdown: "A comment" } : SAMPLE_ARGS[tool];

async function countCommands(w: World) {
  return (await snapshot(w)).commands!.length;
}

describe.each(testKernels())("idempotency ($name)", ({ open }) => {
  const world = useWorlds(open);

  describe.each(WRITE_TOOLS)("%s", (tool) => {
    it("same key and payload (other run ids, other spelling) → the stored result, same commandId, no second write", async () => {
      const w = await world();
      const first = await w.call(tool, w.envelope(tool, SAMPLE_ARGS[tool], { idempotencyKey: "k1" }));
      expectOk(first, "write");
      const revision = await revisionOf(w);
      const before = await snapshot(w);
      const retry = await w.call(
        tool,
        w.envelope(tool, EQUIVALENT_ARGS[tool], {
          idempotencyKey: "k1",
          runId: "run_2",
          sessionId: "session_2",
          traceId: "trace_2",
        }),
      );
      expectOk(retry, "write");
      expect(retry.audit.commandId).toBe(first.audit.commandId);
      expect(retry.result).toEqual(first.result);
      expect(retry.traceId).toBe("trace_2");
      const [record] = await expectOnlyAuditGrew(w, before);
      expect(record).toMatchObject({
        outcome: "replayed",
        effect: "write",
        commandId: first.audit.commandId,
        idempotencyKey: "k1",
      });
      expect(await revisionOf(w)).toBe(revision);
      if (isPageTool(tool)) expect((retry.result as { revision: number }).revision).toBe(revision);
      expect(before.commands).toHaveLength(1);
      expect(before.idempotency).toHaveLength(1);
    });

    it("same key, different payload → mnote_tool_idempotency_conflict, nothing written (dry run too)", async () => {
      const w = await world();
      expectOk(await w.call(tool, w.envelope(tool, SAMPLE_ARGS[tool], { idempotencyKey: "k1" })));
      const before = await snapshot(w);
      for (const dryRun of [false, true]) {
        const out = await w.call(tool, w.envelope(tool, OTHER_WRITE_ARGS[tool], { idempotencyKey: "k1", dryRun }));
        expectFailure(out, "mnote_tool_idempotency_conflict", M.idempotencyConflict);
      }
      const records = await expectOnlyAuditGrew(w, before, 2);
      expect(records.map((r) => r.errorCode)).toEqual([
        "mnote_tool_idempotency_conflict",
        "mnote_tool_idempotency_conflict",
      ]);
    });

    it("ten concurrent calls with one key → exactly one command, all answer its commandId", async () => {
      const w = await world();
      const revision = await revisionOf(w);
      const before = await snapshot(w);
      const outs = await Promise.all(
        Array.from({ length: 10 }, () =>
          w.call(tool, w.envelope(tool, SAMPLE_ARGS[tool], { idempotencyKey: "together" })),
        ),
      );
      for (const out of outs) expectOk(out, "write");
      expect(new Set(outs.map((o) => o.audit.commandId)).size).toBe(1);
      expect(new Set(outs.map((o) => JSON.stringify(o.result))).size).toBe(1);
      const after = await snapshot(w);
      expect(after.commands!.length - before.commands!.length).toBe(1);
      expect(after.idempotency!.length - before.idempotency!.length).toBe(1);
      expect(after.nodes!.length - before.nodes!.length).toBe(isArtifactNode(tool) ? 1 : 0);
      expect(after.edges!.length - before.edges!.length).toBe(isArtifactNode(tool) ? 1 : 0);
      expect(after.comments!.length - before.comments!.length).toBe(tool === "mnote.comment.create" ? 1 : 0);
      expect(await revisionOf(w)).toBe(isPageTool(tool) ? revision + 1 : revision);
      if (tool === "mnote.page.save") expect(await w.kernel.getBlocks(w.ids.page)).toHaveLength(3);
      const outcomes = (await w.kernel.listAudit({ documentId: w.ids.page })).map((r) => r.outcome).sort();
      expect(outcomes).toEqual(["ok", ...Array(9).fill("replayed")]);
    });

    it("concurrent calls with one key and different payloads → one applies, the rest conflict", async () => {
      const w = await world();
      const outs = await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          w.call(
            tool,
            w.envelope(tool, i % 2 ? SAMPLE_ARGS[tool] : OTHER_WRITE_ARGS[tool], { idempotencyKey: "racy" }),
          ),
        ),
      );
      const applied = outs.filter((o) => o.ok);
      const refused = outs.filter((o) => !o.ok);
      expect(new Set(applied.map((o) => o.audit.commandId)).size).toBe(1);
      expect(applied).toHaveLength(3);
      for (const out of refused) expectFailure(out, "mnote_tool_idempotency_conflict");
      expect(await countCommands(w)).toBe(1);
    });

    it("the scope is per tool and per actor: the same key elsewhere is a new command", async () => {
      const w = await world();
      const mine = await w.call(tool, w.envelope(tool, SAMPLE_ARGS[tool], { idempotencyKey: "shared" }));
      const editors = await w.call(
        tool,
        w.envelope(tool, SAMPLE_ARGS[tool], { idempotencyKey: "shared", actorId: w.ids.editor }),
        w.tokens.editor,
      );
      const otherTool = WRITE_TOOLS.find((t) => t !== tool)!;
      const another = await w.call(
        otherTool,
        w.envelope(otherTool, SAMPLE_ARGS[otherTool], { idempotencyKey: "shared" }),
      );
      for (const out of [mine, editors, another]) expectOk(out, "write");
      expect(new Set([mine, editors, another].map((o) => o.audit.commandId)).size).toBe(3);
      expect(await countCommands(w)).toBe(3);
    });

    it("the scope has no documentId: the same key on another page is another payload → conflict", async () => {
      const w = await world();
      expectOk(await w.call(tool, w.envelope(tool, SAMPLE_ARGS[tool], { idempotencyKey: "k" })));
      const out = await w.call(
        tool,
        w.envelope(tool, SAMPLE_ARGS[tool], { idempotencyKey: "k", documentId: w.ids.privatePage }),
      );
      expectFailure(out, "mnote_tool_idempotency_conflict");
    });

    it("a replay re-checks access: after losing the page grant, the retry is denied", async () => {
      const w = await world();
      const editor = (overrides = {}) =>
        w.envelope(tool, privatePageArgs(tool), {
          idempotencyKey: "k",
          actorId: w.ids.editor,
          documentId: w.ids.privatePage,
          ...overrides,
        });
      await w.kernel.admin.grantPage({ documentId: w.ids.privatePage, userId: w.ids.editor, access: "write" });
      const first = await w.call(tool, editor(), w.tokens.editor);
      expectOk(first, "write");
      expect((await w.call(tool, editor(), w.tokens.editor)).audit.commandId).toBe(first.audit.commandId);
      await w.kernel.admin.revokePageGrant({ documentId: w.ids.privatePage, userId: w.ids.editor });
      const before = await snapshot(w);
      const replay = await w.call(tool, editor(), w.tokens.editor);
      expectFailure(replay, "mnote_tool_permission_denied", M.pageUnreadable);
      expect(JSON.stringify(replay)).not.toContain(JSON.stringify(first.result));
      await expectOnlyAuditGrew(w, before);
    });

    it("a replay re-checks membership: a removed member's retry is denied", async () => {
      const w = await world();
      const input = () => w.envelope(tool, SAMPLE_ARGS[tool], { idempotencyKey: "k", actorId: w.ids.editor });
      expectOk(await w.call(tool, input(), w.tokens.editor), "write");
      await w.kernel.admin.removeMember({ workspaceId: w.ids.ws, userId: w.ids.editor });
      const before = await snapshot(w);
      expectFailure(await w.call(tool, input(), w.tokens.editor), "mnote_tool_permission_denied", M.pageUnreadable);
      await expectOnlyAuditGrew(w, before);
    });

    it("a retry of a landed write with its original (now stale) baseRevision replays, it is no conflict", async () => {
      const w = await world();
      // Move the page on first, so baseRevision is not the initial 1.
      expectOk(await w.call("mnote.page.update_title", w.envelope("mnote.page.update_title", { title: "Moved on" })));
      const base = await revisionOf(w);
      const first = await w.call(
        tool,
        w.envelope(tool, { ...SAMPLE_ARGS[tool], baseRevision: base }, { idempotencyKey: "k" }),
      );
      expectOk(first, "write");
      // Someone else writes, so `base` is now stale twice over for page tools.
      expectOk(
        await w.call("mnote.page.update_title", w.envelope("mnote.page.update_title", { title: "Moved again" })),
      );
      const before = await snapshot(w);
      for (const args of [{ ...SAMPLE_ARGS[tool], baseRevision: base }, SAMPLE_ARGS[tool]]) {
        const retry = await w.call(tool, w.envelope(tool, args, { idempotencyKey: "k" }));
        expectOk(retry, "write");
        expect(retry.audit.commandId).toBe(first.audit.commandId);
        expect(retry.result).toEqual(first.result);
      }
      await expectOnlyAuditGrew(w, before, 2);
      // A new key with that stale base is a conflict, as it should be.
      const fresh = await w.call(tool, w.envelope(tool, { ...SAMPLE_ARGS[tool], baseRevision: base }));
      expectFailure(fresh, "mnote_tool_conflict");
    });

    it("a dry run records no key: the real call with the same key then applies, and replays after", async () => {
      const w = await world();
      expectOk(
        await w.call(tool, w.envelope(tool, SAMPLE_ARGS[tool], { idempotencyKey: "k", dryRun: true })),
        "dry_run",
      );
      expect((await snapshot(w)).idempotency).toHaveLength(0);
      const real = await w.call(tool, w.envelope(tool, SAMPLE_ARGS[tool], { idempotencyKey: "k" }));
      expectOk(real, "write");
      const again = await w.call(tool, w.envelope(tool, SAMPLE_ARGS[tool], { idempotencyKey: "k" }));
      expect(again.audit.commandId).toBe(real.audit.commandId);
      expect(await countCommands(w)).toBe(1);
    });

    it("a failed call records no key: the same key later runs with any payload", async () => {
      const w = await world();
      expectFailure(
        await w.call(tool, w.envelope(tool, { ...OTHER_WRITE_ARGS[tool], baseRevision: 0 }, { idempotencyKey: "k" })),
        "mnote_tool_conflict",
      );
      expectOk(await w.call(tool, w.envelope(tool, SAMPLE_ARGS[tool], { idempotencyKey: "k" })), "write");
    });

    it("retention: once idempotencyTtlMs has passed, the key runs again (and may carry a new payload)", async () => {
      const clock = new ManualClock();
      const w = await world({ clock });
      const settings = { idempotencyTtlMs: 5 };
      const first = await w.call(
        tool,
        w.envelope(tool, SAMPLE_ARGS[tool], { idempotencyKey: "short" }),
        w.tokens.owner,
        settings,
      );
      expectOk(first, "write");
      const row = (await snapshot(w)).idempotency![0] as { created_at: string; expires_at: string };
      expect(Date.parse(row.expires_at) - Date.parse(row.created_at)).toBeLessThan(1000);
      clock.advance(20);
      const second = await w.call(
        tool,
        w.envelope(tool, SAMPLE_ARGS[tool], { idempotencyKey: "short" }),
        w.tokens.owner,
        settings,
      );
      expectOk(second, "write");
      expect(second.audit.commandId).not.toBe(first.audit.commandId);
      clock.advance(20);
      const third = await w.call(
        tool,
        w.envelope(tool, OTHER_WRITE_ARGS[tool], { idempotencyKey: "short" }),
        w.tokens.owner,
        settings,
      );
      expectOk(third, "write");
      expect(await countCommands(w)).toBe(3);
      // Within the default window, the same key replays.
      const kept: OutputEnvelope[] = [];
      for (let i = 0; i < 2; i++)
        kept.push(await w.call(tool, w.envelope(tool, SAMPLE_ARGS[tool], { idempotencyKey: "long" })));
      expect(kept[1]!.audit.commandId).toBe(kept[0]!.audit.commandId);
      const longRow = (await snapshot(w)).idempotency!.find((r) => (r as { key: string }).key === "long") as {
        created_at: string;
        expires_at: string;
      };
      expect(Date.parse(longRow.expires_at) - Date.parse(longRow.created_at)).toBeGreaterThan(
        DEFAULT_SETTINGS.idempotencyTtlMs - 60_000,
      );
    });
  });

  it("the default retention window is 24 hours (MNOTE_IDEMPOTENCY_TTL_HOURS is read at a process's start: config.test.ts)", () => {
    expect(DEFAULT_SETTINGS.idempotencyTtlMs).toBe(24 * 3_600_000);
  });
});
