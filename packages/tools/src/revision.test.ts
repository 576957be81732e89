import { TOOL_ERROR_MESSAGES as M } from "@mnote/contract";
import { describe, expect, it } from "vitest";
import {
  expectFailure,
  expectOk,
  expectOnlyAuditGrew,
  PAGE_WRITE_TOOLS,
  revisionOf,
  snapshot,
  useWorlds,
  WRITE_TOOLS,
} from "./test-contract";
import { testKernels } from "./test-kernels";
import { SAMPLE_ARGS } from "./test-support";

/**
 * Rule 8: page.get returns the revision; every write takes an optional baseRevision; a
 * stale one → mnote_tool_conflict ("页面版本冲突，需要刷新后重试"), nothing written.
 * A permission error wins over a conflict.
 */
describe.each(testKernels())("revisions and conflicts ($name)", ({ open }) => {
  const world = useWorlds(open);

  it("page.get returns the revision; each page write moves it by one, artifact writes leave it", async () => {
    const w = await world();
    const read = async () =>
      expectOk<{ revision: number }>(await w.call("mnote.page.get", w.envelope("mnote.page.get"))).revision;
    expect(await read()).toBe(1);
    let expected = 1;
    for (const tool of WRITE_TOOLS) {
      const out = await w.call(tool, w.envelope(tool, { ...SAMPLE_ARGS[tool], baseRevision: await read() }));
      expectOk(out, "write");
      if (PAGE_WRITE_TOOLS.includes(tool)) {
        expected++;
        expect((out.result as { revision: number }).revision).toBe(expected);
      }
      expect(await read()).toBe(expected);
    }
    expect(expected).toBe(5);
  });

  describe.each(WRITE_TOOLS)("%s", (tool) => {
    it.each([
      ["older", (current: number) => current - 1],
      ["newer", (current: number) => current + 1],
      ["zero", () => 0],
    ])("a %s baseRevision → mnote_tool_conflict with the contract's words, nothing written", async (_name, stale) => {
      const w = await world();
      expectOk(await w.call("mnote.page.update_title", w.envelope("mnote.page.update_title", { title: "Moved on" })));
      const current = await revisionOf(w);
      const before = await snapshot(w);
      const out = await w.call(tool, w.envelope(tool, { ...SAMPLE_ARGS[tool], baseRevision: stale(current) }));
      expectFailure(out, "mnote_tool_conflict", M.conflict);
      expect(out.error!.message).toContain("页面版本冲突，需要刷新后重试");
      const [record] = await expectOnlyAuditGrew(w, before);
      expect(record).toMatchObject({ errorCode: "mnote_tool_conflict", baseRevision: stale(current), commandId: null });
    });

    it("the current baseRevision applies", async () => {
      const w = await world();
      expectOk(await w.call(tool, w.envelope(tool, { ...SAMPLE_ARGS[tool], baseRevision: 1 })), "write");
    });

    it("a permission error wins over a conflict (viewer, stranger, unreadable page)", async () => {
      const w = await world();
      const stale = { ...SAMPLE_ARGS[tool], baseRevision: 42 };
      const before = await snapshot(w);
      expectFailure(
        await w.call(tool, w.envelope(tool, stale, { actorId: w.ids.viewer }), w.tokens.viewer),
        "mnote_tool_permission_denied",
      );
      expectFailure(
        await w.call(tool, w.envelope(tool, stale, { actorId: w.ids.stranger }), w.tokens.stranger),
        "mnote_tool_permission_denied",
        M.pageUnreadable,
      );
      expectFailure(
        await w.call(
          tool,
          w.envelope(tool, stale, { actorId: w.ids.editor, documentId: w.ids.privatePage }),
          w.tokens.editor,
        ),
        "mnote_tool_permission_denied",
        M.pageUnreadable,
      );
      await expectOnlyAuditGrew(w, before, 3);
    });
  });

  /** Five different payloads per page tool, for the race below. */
  const RACERS: Record<string, (i: number) => Record<string, unknown>> = {
    "mnote.page.save": (i) => ({ content: [{ type: "paragraph", text: `racer ${i}` }], mode: "append" }),
    "mnote.page.edit": (i) => ({ operations: [{ op: "replace", blockId: "p1", text: `racer ${i}` }] }),
    "mnote.page.update_title": (i) => ({ title: `Title ${i}` }),
    "mnote.page.update_options": (i) => ({ options: { wideLayout: i % 2 === 0, smallText: i > 2 } }),
  };

  it.each(PAGE_WRITE_TOOLS)(
    "%s: concurrent writes on one base revision (different keys): one applies, the others conflict",
    async (tool) => {
      const w = await world();
      const outs = await Promise.all(
        Array.from({ length: 5 }, (_, i) => w.call(tool, w.envelope(tool, { ...RACERS[tool]!(i), baseRevision: 1 }))),
      );
      expect(outs.filter((o) => o.ok)).toHaveLength(1);
      for (const out of outs.filter((o) => !o.ok)) expectFailure(out, "mnote_tool_conflict", M.conflict);
      expect(await revisionOf(w)).toBe(2);
      const { commands } = await snapshot(w);
      expect(commands).toHaveLength(1);
      expect((commands![0] as { id: string }).id).toBe(outs.find((o) => o.ok)!.audit.commandId);
      if (tool === "mnote.page.save") expect(await w.kernel.getBlocks(w.ids.page)).toHaveLength(3);
    },
  );
});
