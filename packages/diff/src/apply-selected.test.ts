import type { Block, Change } from "@mnote/contract";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { applySelectedChanges } from "./apply-selected";
import { diffBlocks } from "./diff-blocks";
import { blockListPair, ids, paragraph } from "./test-support";

const [a, b, c, d, e] = ["a", "b", "c", "d", "e"].map((id) => paragraph(id)) as [Block, Block, Block, Block, Block];
const keepAll = () => true;
const keepNone = () => false;
const keepAllBut = (kind: Change["kind"]) => (change: Change) => change.kind !== kind;

describe("applySelectedChanges examples", () => {
  it("drops an unticked insert", () => {
    expect(applySelectedChanges([a, b], [a, c, b], keepNone)).toEqual([a, b]);
  });

  it("puts an unticked delete back where it was", () => {
    expect(applySelectedChanges([a, b, c], [a, c], keepNone)).toEqual([a, b, c]);
  });

  it("puts a run of unticked deletes back in order, at the start too", () => {
    expect(applySelectedChanges([a, b, c, d], [d], keepNone)).toEqual([a, b, c, d]);
  });

  it("keeps an un-moved block after its nearest earlier neighbour", () => {
    // before a b c d, after d a b c: d's move is unticked, so it goes back after c.
    expect(applySelectedChanges([a, b, c, d], [d, a, b, c], keepNone)).toEqual([a, b, c, d]);
  });

  it("reverts an unticked update in place when its move is kept", () => {
    const edited = paragraph("a", "edited");
    const after = [b, c, edited];
    expect(applySelectedChanges([a, b, c], after, keepAllBut("update"))).toEqual([b, c, a]);
    expect(applySelectedChanges([a, b, c], after, keepAllBut("move"))).toEqual([edited, b, c]);
  });

  it("applies a mix: keep the insert and the delete, drop the reorder", () => {
    // before a b c d, after c a e d: b deleted, e inserted, c moved.
    const result = applySelectedChanges([a, b, c, d], [c, a, e, d], keepAllBut("move"));
    expect(ids(result)).toEqual(["a", "c", "e", "d"]);
  });

  it("hands `keep` each change with its position in the list", () => {
    const seen: Array<[Change["kind"], number]> = [];
    applySelectedChanges([a, b], [b, c], (change, i) => {
      seen.push([change.kind, i]);
      return true;
    });
    expect(seen).toEqual([
      ["delete", 0],
      ["insert", 1],
    ]);
  });

  it("uses the changes it is given and ignores non-block ones", () => {
    const changes: Change[] = [{ kind: "set_title", before: "x", after: "y" }, ...diffBlocks([a], [a, b])];
    expect(applySelectedChanges([a], [a, b], (change) => change.kind === "set_title", changes)).toEqual([a]);
  });
});

describe("applySelectedChanges properties", () => {
  /** A pair, its diff, and a random choice of which changes to keep. */
  const selection = blockListPair.chain(([before, after]) => {
    const changes = diffBlocks(before, after);
    return fc
      .array(fc.boolean(), { minLength: changes.length, maxLength: changes.length })
      .map((kept) => ({ before, after, changes, kept }));
  });

  it("gives `after` when every change is kept", () => {
    fc.assert(
      fc.property(blockListPair, ([before, after]) => {
        expect(applySelectedChanges(before, after, keepAll)).toEqual(after);
      }),
    );
  });

  it("gives `before` when no change is kept", () => {
    fc.assert(
      fc.property(blockListPair, ([before, after]) => {
        expect(applySelectedChanges(before, after, keepNone)).toEqual(before);
      }),
    );
  });

  it("never repeats an id", () => {
    fc.assert(
      fc.property(selection, ({ before, after, changes, kept }) => {
        const result = applySelectedChanges(before, after, (_, i) => kept[i]!, changes);
        expect(new Set(ids(result)).size).toBe(result.length);
      }),
    );
  });

  it("leaves only kept inserts, deletes and updates between `before` and the result", () => {
    fc.assert(
      fc.property(selection, ({ before, after, changes, kept }) => {
        const result = applySelectedChanges(before, after, (_, i) => kept[i]!, changes);
        const keptIds = (kind: Change["kind"]) =>
          new Set(changes.flatMap((change, i) => (kept[i] && change.kind === kind ? [changedId(change)] : [])));
        for (const change of diffBlocks(before, result)) {
          if (change.kind === "move") continue;
          expect(keptIds(change.kind).has(changedId(change))).toBe(true);
        }
      }),
    );
  });

  it("applies every kept insert, delete and update", () => {
    fc.assert(
      fc.property(selection, ({ before, after, changes, kept }) => {
        const result = applySelectedChanges(before, after, (_, i) => kept[i]!, changes);
        const resultById = new Map(result.map((block) => [block.id, block]));
        changes.forEach((change, i) => {
          if (!kept[i]) return;
          if (change.kind === "insert") expect(resultById.get(change.block.id)).toEqual(change.block);
          if (change.kind === "delete") expect(resultById.has(change.block.id)).toBe(false);
          if (change.kind === "update") expect(resultById.get(change.after.id)).toEqual(change.after);
        });
      }),
    );
  });

  it("keeps the before order of common blocks when every move is unticked", () => {
    fc.assert(
      fc.property(selection, ({ before, after, changes, kept }) => {
        const keep = (change: Change, i: number) => change.kind !== "move" && kept[i]!;
        const result = applySelectedChanges(before, after, keep, changes);
        expect(diffBlocks(before, result).filter((change) => change.kind === "move")).toEqual([]);
      }),
    );
  });
});

function changedId(change: Change): string {
  switch (change.kind) {
    case "insert":
    case "delete":
    case "move":
      return change.block.id;
    case "update":
      return change.after.id;
    default:
      return "";
  }
}
