import type { Block, Change } from "@mnote/contract";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { diffBlocks } from "./diff-blocks";
import { reviewRows } from "./review-order";
import { blockListPair, paragraph } from "./test-support";

const changesOf = (rows: ReturnType<typeof reviewRows>) => rows.flatMap((r) => (r.row === "change" ? [r.change] : []));

describe("reviewRows", () => {
  it("puts a delete far down the page after a change near the top (the diff lists deletes first)", () => {
    const before = Array.from({ length: 1000 }, (_, i) => paragraph(`b${i}`));
    const after = before.filter((_, i) => i !== 900).map((b, i) => (i === 2 ? { ...b, text: "edited" } : b));
    const changes = diffBlocks(before, after);
    expect(changes.map((c) => c.kind)).toEqual(["delete", "update"]);
    const rows = reviewRows(changes);
    expect(changesOf(rows)).toEqual([1, 0]);
    // Two untouched blocks above the update, 897 between it and the delete (blocks 3–899).
    expect(rows).toEqual([
      { row: "unchanged", blocks: 2 },
      { row: "change", change: 1 },
      { row: "unchanged", blocks: 897 },
      { row: "change", change: 0 },
    ]);
  });

  it("lists page-wide changes first and counts the untouched blocks between block changes exactly", () => {
    const blocks: Block[] = Array.from({ length: 10 }, (_, i) => paragraph(`p${i}`));
    const after = blocks.map((b, i) => (i === 1 || i === 7 ? { ...b, text: `${b.text}!` } : b));
    const changes: Change[] = [...diffBlocks(blocks, after), { kind: "set_title", before: "A", after: "B" }];
    expect(reviewRows(changes)).toEqual([
      { row: "change", change: 2 },
      { row: "unchanged", blocks: 1 },
      { row: "change", change: 0 },
      { row: "unchanged", blocks: 5 },
      { row: "change", change: 1 },
    ]);
  });

  it("reads a moved and changed block as its move, then its update", () => {
    const [a, b, c] = [paragraph("a"), paragraph("b"), paragraph("c")];
    const changes = diffBlocks([a, b, c], [{ ...c, text: "c2" }, a, b]);
    expect(reviewRows(changes).map((r) => (r.row === "change" ? changes[r.change]!.kind : "gap"))).toEqual([
      "move",
      "update",
    ]);
  });

  it("keeps every change exactly once, whatever the pages", () => {
    fc.assert(
      fc.property(blockListPair, ([before, after]) => {
        const changes = diffBlocks(before, after);
        const rows = reviewRows(changes);
        expect(changesOf(rows).sort((x, y) => x - y)).toEqual(changes.map((_, i) => i));
        // An untouched stretch is never empty and never counts more blocks than the page has.
        for (const row of rows) {
          if (row.row !== "unchanged") continue;
          expect(row.blocks).toBeGreaterThan(0);
          expect(row.blocks).toBeLessThanOrEqual(after.length);
        }
      }),
    );
  });

  it("without moves, counts exactly the untouched blocks of the new page above the last change", () => {
    fc.assert(
      fc.property(blockListPair, ([before, after]) => {
        const changes = diffBlocks(before, after);
        fc.pre(!changes.some((c) => c.kind === "move"));
        const afterIndex = new Map(after.map((b, i) => [b.id, i]));
        // Where each change sits in the new page; a delete sits where the next surviving block now is.
        const slotOf = (c: Change) => {
          if (c.kind !== "delete") return c.kind === "insert" || c.kind === "update" ? c.index : -1;
          const next = before.slice(c.index + 1).find((b) => afterIndex.has(b.id));
          return next ? afterIndex.get(next.id)! : after.length;
        };
        const touched = new Set(changes.flatMap((c) => (c.kind === "insert" || c.kind === "update" ? [c.index] : [])));
        const end = Math.max(0, ...changes.map((c) => slotOf(c) + (c.kind === "delete" ? 0 : 1)));
        const expected = Array.from({ length: end }, (_, i) => i).filter((i) => !touched.has(i)).length;
        const counted = reviewRows(changes).reduce((n, r) => n + (r.row === "unchanged" ? r.blocks : 0), 0);
        expect(counted).toBe(expected);
        // And in page order: the slots of the changes, read down the rows, never go back up.
        const slots = reviewRows(changes).flatMap((r) => (r.row === "change" ? [slotOf(changes[r.change]!)] : []));
        slots.forEach((slot, i) => expect(slot).toBeGreaterThanOrEqual(i === 0 ? -1 : slots[i - 1]!));
      }),
      { numRuns: 300 },
    );
  });
});
