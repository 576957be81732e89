import type { Change } from "@mnote/contract";
import { describe, expect, it } from "vitest";
import { diffBlocks } from "./diff-blocks";
import { summarizeChanges } from "./summarize";
import { paragraph } from "./test-support";

const [a, b, c, d] = ["a", "b", "c", "d"].map((id) => paragraph(id));

describe("summarizeChanges", () => {
  it("sums an append into one entry", () => {
    expect(summarizeChanges(diffBlocks([a!], [a!, b!, c!]), "append")).toEqual([{ op: "append", blocks: 2 }]);
  });

  it("reports an append that adds nothing as no entries", () => {
    expect(summarizeChanges([], "append")).toEqual([]);
  });

  it("lists the replace kinds that occurred, in the order insert, delete, update, move", () => {
    const changes = diffBlocks([a!, b!, c!], [paragraph("c", "edited"), a!, d!]);
    expect(summarizeChanges(changes, "replace")).toEqual([
      { op: "insert", blocks: 1 },
      { op: "delete", blocks: 1 },
      { op: "update", blocks: 1 },
      { op: "move", blocks: 1 },
    ]);
  });

  it("leaves out kinds with no changes and ignores non-block changes", () => {
    const changes: Change[] = [
      { kind: "set_title", before: "Old", after: "New" },
      { kind: "delete", index: 0, block: a! },
      { kind: "delete", index: 1, block: b! },
      { kind: "add_ai_note", content: "note" },
    ];
    expect(summarizeChanges(changes, "replace")).toEqual([{ op: "delete", blocks: 2 }]);
    expect(summarizeChanges([], "replace")).toEqual([]);
  });
});
