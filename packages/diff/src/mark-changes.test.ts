import type { Block } from "@mnote/contract";
import { describe, expect, it } from "vitest";
import { diffBlocks } from "./diff-blocks";
import { indentChange, markChanges } from "./mark-changes";

const p = (text: string, marks: NonNullable<Extract<Block, { type: "paragraph" }>["marks"]> = []): Block =>
  marks.length ? { id: "p", type: "paragraph", text, marks } : { id: "p", type: "paragraph", text };

describe("mark changes (decision 0026)", () => {
  it("a mark-only change is a change in the diff, and equal marks are not", () => {
    const before = [p("Ship on Friday")];
    const bold = [p("Ship on Friday", [{ type: "bold", start: 8, end: 14 }])];
    expect(diffBlocks(before, bold)).toEqual([{ kind: "update", index: 0, before: before[0], after: bold[0] }]);
    // The same marks in new arrays (read from the database, sent by a model) are no change.
    expect(diffBlocks(bold, [p("Ship on Friday", [{ type: "bold", start: 8, end: 14 }])])).toEqual([]);
  });

  it("says what changed in words", () => {
    expect(markChanges(p("Ship on Friday"), p("Ship on Friday", [{ type: "bold", start: 8, end: 14 }]))).toEqual([
      "bold added to 'Friday'",
    ]);
    expect(markChanges(p("Ship soon", [{ type: "italic", start: 5, end: 9 }]), p("Ship soon"))).toEqual([
      "italic removed from 'soon'",
    ]);
    expect(
      markChanges(
        p("see docs", [{ type: "link", start: 4, end: 8, href: "https://a.example" }]),
        p("see docs", [{ type: "link", start: 4, end: 8, href: "https://b.example" }]),
      ),
    ).toEqual(["link target changed on 'docs': https://a.example → https://b.example"]);
    // Text edited around a bold word: the bold word is no formatting change.
    expect(
      markChanges(
        p("Ship on Friday", [{ type: "bold", start: 8, end: 14 }]),
        p("We ship on Friday", [{ type: "bold", start: 11, end: 17 }]),
      ),
    ).toEqual([]);
  });

  it("reports an indent change like a level change", () => {
    expect(
      indentChange({ id: "a", type: "bulleted", text: "x" }, { id: "a", type: "bulleted", text: "x", indent: 1 }),
    ).toEqual({ from: 0, to: 1 });
    expect(indentChange({ id: "a", type: "bulleted", text: "x" }, { id: "a", type: "numbered", text: "x" })).toBeNull();
  });
});
