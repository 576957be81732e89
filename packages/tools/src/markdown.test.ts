import type { Block } from "@mnote/contract";
import { describe, expect, it } from "vitest";
import { expectFailure, expectOk, snapshot } from "./test-contract";
import { testKernels } from "./test-kernels";
import { createWorld, withBody } from "./test-support";

const formatted: Block[] = [
  { id: "h", type: "heading", level: 1, text: "Plan" },
  { id: "p", type: "paragraph", text: "Ship on Friday", marks: [{ type: "bold", start: 8, end: 14 }] },
  { id: "l0", type: "bulleted", text: "top" },
  { id: "l1", type: "todo", checked: false, text: "nested", indent: 1 },
];

describe.each(testKernels())("Markdown through the tools (decision 0026) ($name)", ({ open }) => {
  it("page.get format: markdown answers the window as Markdown with ids; blocks stay the default", async () => {
    const w = await createWorld(open);
    await withBody(w, formatted);
    const md = expectOk<{ markdown: string; blocks?: unknown; window: { count: number } }>(
      await w.call("mnote.page.get", w.envelope("mnote.page.get", { format: "markdown" })),
    );
    expect(md.markdown).toBe(
      "# Plan <!-- mnote:id=h -->\n\nShip on **Friday** <!-- mnote:id=p -->\n\n" +
        "- top <!-- mnote:id=l0 -->\n  - [ ] nested <!-- mnote:id=l1 -->\n",
    );
    expect(md.blocks).toBeUndefined();
    expect(md.window.count).toBe(4);
    const blocks = expectOk<{ blocks: Block[]; markdown?: string }>(
      await w.call("mnote.page.get", w.envelope("mnote.page.get", {})),
    );
    expect(blocks.blocks).toEqual(formatted);
    expect(blocks.markdown).toBeUndefined();
    await w.kernel.close();
  });

  it("page.save takes markdown: ids kept from the comments, formatting stored as marks", async () => {
    const w = await createWorld(open);
    const revision = await withBody(w, formatted);
    const markdown =
      "# Plan <!-- mnote:id=h -->\n\nShip on *Friday*, see [docs](https://example.com) <!-- mnote:id=p -->\n\n" +
      "- top <!-- mnote:id=l0 -->\n  - [x] nested <!-- mnote:id=l1 -->\n    - deeper\n";
    expectOk(
      await w.call("mnote.page.save", w.envelope("mnote.page.save", { markdown, baseRevision: revision })),
      "write",
    );
    const after = await w.kernel.getBlocks(w.ids.page);
    expect(after.slice(0, 4)).toEqual([
      formatted[0],
      {
        id: "p",
        type: "paragraph",
        text: "Ship on Friday, see docs",
        marks: [
          { type: "italic", start: 8, end: 14 },
          { type: "link", start: 20, end: 24, href: "https://example.com" },
        ],
      },
      formatted[2],
      { ...formatted[3], checked: true },
    ]);
    expect(after[4]).toMatchObject({ type: "bulleted", text: "deeper", indent: 2 });
    await w.kernel.close();
  });

  it("page.save in the block form: plain text for a formatted block keeps its marks while the text is the same", async () => {
    const w = await createWorld(open);
    const revision = await withBody(w, formatted);
    const content = [
      { id: "h", type: "heading", level: 1, text: "Plan" },
      { id: "p", type: "paragraph", text: "Ship on Friday" },
      { id: "l0", type: "bulleted", text: "top", marks: [] },
      { id: "l1", type: "todo", checked: false, text: "nested, changed", indent: 1 },
    ];
    expectOk(
      await w.call("mnote.page.save", w.envelope("mnote.page.save", { content, baseRevision: revision })),
      "write",
    );
    const after = await w.kernel.getBlocks(w.ids.page);
    expect(after[1]).toEqual(formatted[1]);
    expect(after[3]).toEqual({ id: "l1", type: "todo", checked: false, text: "nested, changed", indent: 1 });
    const cleared = [{ ...content[1], marks: [] }];
    expectOk(
      await w.call("mnote.page.save", w.envelope("mnote.page.save", { content: cleared, allowDeletes: true })),
      "write",
    );
    expect(await w.kernel.getBlocks(w.ids.page)).toEqual([{ id: "p", type: "paragraph", text: "Ship on Friday" }]);
    await w.kernel.close();
  });

  it("page.edit inserts and replaces by Markdown; a dry run shows the mark change", async () => {
    const w = await createWorld(open);
    const revision = await withBody(w, formatted);
    const operations = [
      { op: "replace", blockId: "p", markdown: "Ship on **Friday** and ~~Monday~~" },
      { op: "replace", blockId: "l1", markdown: "- [x] nested" },
      { op: "insert", after: "l1", markdown: "  - child\n" },
    ];
    const dry = expectOk<{ changes: { kind: string }[]; plan: string[] }>(
      await w.call(
        "mnote.page.edit",
        w.envelope("mnote.page.edit", { operations, baseRevision: revision }, { dryRun: true }),
      ),
      "dry_run",
    );
    expect(dry.changes.map((change) => change.kind)).toEqual(["update", "update", "insert"]);
    expect(dry.plan).toEqual(expect.arrayContaining(["block p: strikethrough added to 'Monday'"]));
    expectOk(
      await w.call("mnote.page.edit", w.envelope("mnote.page.edit", { operations, baseRevision: revision })),
      "write",
    );
    const after = await w.kernel.getBlocks(w.ids.page);
    expect(after[1]).toEqual({
      id: "p",
      type: "paragraph",
      text: "Ship on Friday and Monday",
      marks: [
        { type: "bold", start: 8, end: 14 },
        { type: "strike", start: 19, end: 25 },
      ],
    });
    // A one-block replace keeps the item's indent; the insert's own Markdown says the child's.
    expect(after[3]).toEqual({ ...formatted[3], checked: true });
    expect(after[4]).toMatchObject({ type: "bulleted", text: "child" });
    await w.kernel.close();
  });

  it("refuses bad Markdown and bad formatting naming the field, writing nothing", async () => {
    const w = await createWorld(open);
    const revision = await withBody(w, formatted);
    const before = await snapshot(w);
    const cases: [string, Record<string, unknown>, RegExp][] = [
      ["mnote.page.save", { markdown: "| a |\n| - |\n| 1 |" }, /^args\.markdown: line 1: a table/],
      ["mnote.page.save", { markdown: "[x](javascript:alert(1))" }, /args\.markdown: line 1: a link to "javascript:/],
      ["mnote.page.save", { markdown: "x", content: [] }, /give exactly one of content or markdown/],
      [
        "mnote.page.save",
        { content: [{ type: "paragraph", text: "hi", marks: [{ type: "link", start: 0, end: 2, href: "data:x" }] }] },
        /args\.content\.0\.marks\.0\.href: a link's scheme must be http, https or mailto/,
      ],
      [
        "mnote.page.edit",
        { operations: [{ op: "replace", blockId: "p", markdown: "one\n\ntwo" }] },
        /args\.operations\[0\]\.markdown: a replace takes one block of Markdown, not 2/,
      ],
      [
        "mnote.page.edit",
        { operations: [{ op: "insert", at: "end", markdown: "x", blocks: [{ type: "paragraph", text: "y" }] }] },
        /needs exactly one of blocks or markdown/,
      ],
      [
        "mnote.page.edit",
        { operations: [{ op: "replace", blockId: "p", marks: [{ type: "bold", start: 0, end: 99 }] }] },
        /replace of block p: marks\.0\.end: a mark ends at 99, past the end of the text/,
      ],
    ];
    for (const [tool, args, message] of cases) {
      const out = await w.call(tool, w.envelope(tool as "mnote.page.save", { baseRevision: revision, ...args }));
      expectFailure(out, "mnote_tool_invalid_input", message);
    }
    const after = await snapshot(w);
    expect(after.blocks).toEqual(before.blocks);
    expect(after.commands).toEqual(before.commands);
    await w.kernel.close();
  });
});
