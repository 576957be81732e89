import { type Block, type DryRunResult, DryRunResultSchema } from "@mnote/contract";
import { describe, expect, it } from "vitest";
import { expectFailure, expectOk, expectOnlyAuditGrew, snapshot, useWorlds } from "./test-contract";
import { testKernels } from "./test-kernels";
import type { World } from "./test-support";

/**
 * Rule 9: page.save takes an array of blocks (stable ids, nine types), mode replace
 * (the default) or append; answers {commandName: "page.body.save", revision}; its dry
 * run has the seed's summary diff and a per-block change list a panel can render.
 */

const H1: Block = { id: "h1", type: "heading", level: 1, text: "Plan" };
const P1: Block = { id: "p1", type: "paragraph", text: "First paragraph" };

const save = (
  w: World,
  args: Record<string, unknown>,
  overrides: Record<string, unknown> = {},
  token = w.tokens.owner,
) => w.call("mnote.page.save", w.envelope("mnote.page.save", args, overrides), token);
const blocksOf = (w: World) => w.kernel.getBlocks(w.ids.page);

describe.each(testKernels())("page.save ($name)", ({ open }) => {
  const world = useWorlds(open);

  it("replace is the default mode: content becomes the whole body", async () => {
    const w = await world();
    const out = await save(w, { content: [{ id: "only", type: "quote", text: "Only this" }] });
    expect(expectOk(out, "write")).toEqual({ commandName: "page.body.save", revision: 2 });
    expect(await blocksOf(w)).toEqual([{ id: "only", type: "quote", text: "Only this" }]);
  });

  it("append adds content after the existing blocks", async () => {
    const w = await world();
    const out = await save(w, { mode: "append", content: [{ id: "a1", type: "paragraph", text: "More" }] });
    expect(expectOk(out, "write")).toEqual({ commandName: "page.body.save", revision: 2 });
    expect(await blocksOf(w)).toEqual([H1, P1, { id: "a1", type: "paragraph", text: "More" }]);
  });

  it("stores the whole block model, with per-type defaults, and page.get returns it", async () => {
    const w = await world();
    const content = [
      { id: "b01", type: "heading", level: 2, text: "H2" },
      { id: "b02", type: "heading", text: "H default" },
      { id: "b03", type: "paragraph", text: "P" },
      { id: "b04", type: "bulleted", text: "B" },
      { id: "b05", type: "numbered", text: "N" },
      { id: "b06", type: "todo", checked: true, text: "T done" },
      { id: "b07", type: "todo", text: "T open" },
      { id: "b08", type: "quote", text: "Q" },
      { id: "b09", type: "code", language: "ts", text: "const x = 1;\n" },
      { id: "b10", type: "code", text: "plain" },
      { id: "b11", type: "divider" },
      { id: "b12", type: "callout", text: "C" },
    ];
    expectOk(await save(w, { content }), "write");
    const read = expectOk<{ blocks: Block[]; bodySummary: string }>(
      await w.call("mnote.page.get", w.envelope("mnote.page.get")),
    );
    const expected: Block[] = [
      { id: "b01", type: "heading", level: 2, text: "H2" },
      { id: "b02", type: "heading", level: 1, text: "H default" },
      { id: "b03", type: "paragraph", text: "P" },
      { id: "b04", type: "bulleted", text: "B" },
      { id: "b05", type: "numbered", text: "N" },
      { id: "b06", type: "todo", checked: true, text: "T done" },
      { id: "b07", type: "todo", checked: false, text: "T open" },
      { id: "b08", type: "quote", text: "Q" },
      { id: "b09", type: "code", language: "ts", text: "const x = 1;\n" },
      { id: "b10", type: "code", language: "", text: "plain" },
      { id: "b11", type: "divider", text: "" },
      { id: "b12", type: "callout", text: "C" },
    ];
    expect(read.blocks).toEqual(expected);
    expect(read.bodySummary).toBe("H2 H default P B N T done T open Q const x = 1; plain C");
  });

  it("a replace dry run lists insert, delete, update (before/after) and move per block, and the real call lands it", async () => {
    const w = await world();
    const X1: Block = { id: "x1", type: "paragraph", text: "Extra" };
    const X2: Block = { id: "x2", type: "bulleted", text: "Gone soon" };
    expectOk(await save(w, { mode: "append", content: [X1, X2] }));
    const P1b: Block = { ...P1, text: "First paragraph, edited" };
    const N1: Block = { id: "n1", type: "todo", checked: false, text: "New" };
    // before [h1, p1, x1, x2] → after [p1', x1, h1, n1]
    const args = { content: [P1b, X1, H1, N1], baseRevision: 2 };
    const before = await snapshot(w);
    const preview = DryRunResultSchema.parse(
      expectOk(await save(w, args, { dryRun: true, idempotencyKey: "r1" }), "dry_run"),
    );
    expect(preview.diff).toEqual([
      { op: "insert", blocks: 1 },
      { op: "delete", blocks: 1 },
      { op: "update", blocks: 1 },
      { op: "move", blocks: 1 },
    ]);
    expect(preview.changes).toEqual([
      { kind: "delete", index: 3, block: X2 },
      { kind: "update", index: 0, before: P1, after: P1b },
      { kind: "move", from: 0, to: 2, block: H1 },
      { kind: "insert", index: 3, block: N1 },
    ]);
    expect(preview.plan).toEqual(["replace the page's body: 4 blocks become 4", "page revision 2 → 3"]);
    await expectOnlyAuditGrew(w, before);
    expect(expectOk(await save(w, args, { idempotencyKey: "r1" }), "write")).toEqual({
      commandName: "page.body.save",
      revision: 3,
    });
    expect(await blocksOf(w)).toEqual([P1b, X1, H1, N1]);
  });

  it("a replace with no content empties the page; one that changes nothing has an empty diff", async () => {
    const w = await world();
    const same = DryRunResultSchema.parse(expectOk(await save(w, { content: [H1, P1] }, { dryRun: true })));
    expect(same.diff).toEqual([]);
    expect(same.changes).toEqual([]);
    const empty = DryRunResultSchema.parse(expectOk(await save(w, { content: [] }, { dryRun: true })));
    expect(empty.diff).toEqual([{ op: "delete", blocks: 2 }]);
    expectOk(await save(w, { content: [] }), "write");
    expect(await blocksOf(w)).toEqual([]);
  });

  it("ids generated for id-less blocks are the same in the dry run and the real call with that key", async () => {
    const w = await world();
    const content = [
      { type: "paragraph", text: "one" },
      { type: "heading", level: 3, text: "two" },
    ];
    const dry = (key: string) => save(w, { mode: "append", content }, { dryRun: true, idempotencyKey: key });
    const idsOf = (preview: DryRunResult) => preview.changes.map((c) => (c as { block: Block }).block.id);
    const first = idsOf(DryRunResultSchema.parse(expectOk(await dry("gen"))));
    const second = idsOf(DryRunResultSchema.parse(expectOk(await dry("gen"))));
    const other = idsOf(DryRunResultSchema.parse(expectOk(await dry("other"))));
    expect(first).toHaveLength(2);
    expect(new Set(first).size).toBe(2);
    expect(second).toEqual(first);
    expect(other).not.toEqual(first);
    expectOk(await save(w, { mode: "append", content }, { idempotencyKey: "gen" }), "write");
    expect((await blocksOf(w)).slice(2).map((b) => b.id)).toEqual(first);
    // The retry is a replay: no third and fourth block.
    expectOk(await save(w, { mode: "append", content }, { idempotencyKey: "gen" }), "write");
    expect(await blocksOf(w)).toHaveLength(4);
  });

  it("blocks without ids are new blocks even when their key was used by another actor", async () => {
    const w = await world();
    const content = [{ type: "paragraph", text: "same key" }];
    expectOk(await save(w, { mode: "append", content }, { idempotencyKey: "common" }), "write");
    expectOk(
      await save(w, { mode: "append", content }, { idempotencyKey: "common", actorId: w.ids.editor }, w.tokens.editor),
      "write",
    );
    const blocks = await blocksOf(w);
    expect(blocks.map((b) => b.text)).toEqual(["Plan", "First paragraph", "same key", "same key"]);
    expect(new Set(blocks.map((b) => b.id)).size).toBe(4);
    // In a replace, too: the editor's id-less block does not take over the owner's block from that key.
    expectOk(
      await save(w, { mode: "append", content: [{ type: "paragraph", text: "owner's" }] }, { idempotencyKey: "rk" }),
      "write",
    );
    const preview = DryRunResultSchema.parse(
      expectOk(
        await save(
          w,
          { content: [{ type: "quote", text: "editor's" }] },
          { idempotencyKey: "rk", actorId: w.ids.editor, dryRun: true },
          w.tokens.editor,
        ),
      ),
    );
    expect(preview.diff).toEqual([
      { op: "insert", blocks: 1 },
      { op: "delete", blocks: 5 },
    ]);
    expect(preview.changes.filter((c) => c.kind === "update")).toEqual([]);
  });

  it("an append whose derived ids are taken writes the ids its dry run showed, in one command", async () => {
    const w = await world();
    const content = [
      { type: "paragraph", text: "one" },
      { type: "paragraph", text: "two" },
    ];
    expectOk(await save(w, { mode: "append", content }, { idempotencyKey: "shared" }), "write");
    const editor = { idempotencyKey: "shared", actorId: w.ids.editor };
    const preview = DryRunResultSchema.parse(
      expectOk(await save(w, { mode: "append", content }, { ...editor, dryRun: true }, w.tokens.editor)),
    );
    const shown = preview.changes.map((change) => (change.kind === "insert" ? change.block.id : null));
    const commandsBefore = (await w.kernel.listAudit({ documentId: w.ids.page })).filter((r) => r.commandId).length;
    // The real call plans without asking about derived ids, meets the owner's blocks on insert, and plans again.
    expect(expectOk(await save(w, { mode: "append", content }, editor, w.tokens.editor), "write")).toMatchObject({
      revision: 3,
    });
    const ids = (await blocksOf(w)).map((b) => b.id);
    expect(ids.slice(4)).toEqual(shown);
    expect(new Set(ids).size).toBe(6);
    const commandsAfter = (await w.kernel.listAudit({ documentId: w.ids.page })).filter((r) => r.commandId).length;
    expect(commandsAfter - commandsBefore).toBe(1);
  });

  it("duplicate block ids are refused, in content and against the page on append; nothing written", async () => {
    const w = await world();
    const before = await snapshot(w);
    const twice = await save(w, {
      content: [
        { id: "d1", type: "paragraph", text: "a" },
        { id: "d1", type: "paragraph", text: "b" },
      ],
    });
    expectFailure(twice, "mnote_tool_invalid_input", /^args\.content: block id d1 appears twice/);
    const onPage = await save(w, { mode: "append", content: [{ id: "h1", type: "paragraph", text: "clash" }] });
    expectFailure(onPage, "mnote_tool_invalid_input", /^args\.content: block id h1 is already on the page/);
    const dry = await save(
      w,
      { mode: "append", content: [{ id: "p1", type: "paragraph", text: "clash" }] },
      { dryRun: true },
    );
    expectFailure(dry, "mnote_tool_invalid_input", /p1/);
    await expectOnlyAuditGrew(w, before, 3);
  });

  it("a replace may keep an id that is on the page (that is how blocks stay stable)", async () => {
    const w = await world();
    expectOk(await save(w, { content: [{ ...P1, text: "kept id" }] }), "write");
    expect(await blocksOf(w)).toEqual([{ ...P1, text: "kept id" }]);
  });
});
