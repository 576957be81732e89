import type { Block } from "@mnote/contract";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { diffBlocks } from "./diff-blocks";
import { suggestedPage } from "./suggested-page";
import { blockListPair, ids, paragraph } from "./test-support";

describe("suggestedPage", () => {
  it("lays inserts, updates and deletes where they land, a delete before the block that followed it", () => {
    const before = ["a", "b", "c", "d"].map((id) => paragraph(id));
    const after: Block[] = [paragraph("a"), paragraph("n", "new"), { ...paragraph("c"), text: "c!" }, paragraph("d")];
    const rows = suggestedPage(before, diffBlocks(before, after));
    expect(rows.map((r) => [r.row, r.block.id])).toEqual([
      ["same", "a"],
      ["delete", "b"],
      ["insert", "n"],
      ["update", "c"],
      ["same", "d"],
    ]);
  });

  it("marks a moved block at its new place", () => {
    const before = ["a", "b", "c"].map((id) => paragraph(id));
    const after = ["c", "a", "b"].map((id) => paragraph(id));
    const rows = suggestedPage(before, diffBlocks(before, after));
    expect(rows.map((r) => [r.row, r.block.id])).toEqual([
      ["move", "c"],
      ["same", "a"],
      ["same", "b"],
    ]);
  });

  it("property: without the delete rows, the blocks are exactly the new page; each change shows once", () => {
    fc.assert(
      fc.property(blockListPair, ([before, after]) => {
        const changes = diffBlocks(before, after);
        const rows = suggestedPage(before, changes);
        expect(ids(rows.filter((r) => r.row !== "delete").map((r) => r.block))).toEqual(ids(after));
        expect(rows.filter((r) => r.row !== "delete").map((r) => r.block)).toEqual(after);
        const shown = rows.flatMap((r) =>
          r.row === "same" ? [] : r.row === "update" && r.moved !== null ? [r.change, r.moved] : [r.change],
        );
        expect(shown.sort((a, b) => a - b)).toEqual(changes.map((_c, i) => i));
      }),
      { numRuns: 100 },
    );
  });
});
