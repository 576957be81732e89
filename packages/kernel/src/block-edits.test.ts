import type { Block } from "@mnote/contract";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  applyBlockEdits,
  type BlockEditOperation,
  EditRejected,
  simulateBlockEdits,
  undoBlockEdits,
} from "./block-edits";

const page = (count: number): Block[] =>
  Array.from({ length: count }, (_, i) => ({ id: `p${i}`, type: "paragraph", text: `t${i}` }));

/** Operations over ids p0..p9 and n0..n9: some name blocks that are not there, which must be refused. */
const operationArb: fc.Arbitrary<BlockEditOperation> = (() => {
  const id = fc.oneof(
    fc.integer({ min: 0, max: 9 }).map((i) => `p${i}`),
    fc.integer({ min: 0, max: 9 }).map((i) => `n${i}`),
  );
  const anchor = fc.oneof(
    id.map((after) => ({ after })),
    fc.constantFrom({ at: "start" as const }, { at: "end" as const }),
  );
  return fc.oneof(
    fc.record({ blockId: id, text: fc.string({ maxLength: 5 }) }).map((r) => ({ op: "replace" as const, ...r })),
    fc
      .tuple(anchor, fc.uniqueArray(fc.integer({ min: 0, max: 9 }), { minLength: 1, maxLength: 3 }))
      .map(([where, ns]) => ({
        op: "insert" as const,
        ...where,
        blocks: ns.map((n): Block => ({ id: `n${n}`, type: "quote", text: `new${n}` })),
      })),
    fc.uniqueArray(id, { minLength: 1, maxLength: 3 }).map((blockIds) => ({ op: "delete" as const, blockIds })),
    fc.tuple(id, anchor).map(([blockId, where]) => ({ op: "move" as const, blockId, ...where })),
  );
})();

/** A plain model of the operations on a whole list, written without indices to check the indexed code against. */
function model(blocks: Block[], operations: BlockEditOperation[]): Block[] | "rejected" {
  let list = [...blocks];
  const has = (id: string) => list.some((block) => block.id === id);
  const place = (items: Block[], where: { after?: string; at?: "start" | "end" }) => {
    if (where.after !== undefined) {
      const i = list.findIndex((block) => block.id === where.after);
      list.splice(i + 1, 0, ...items);
    } else if (where.at === "start") list.unshift(...items);
    else list.push(...items);
  };
  for (const operation of operations) {
    if (operation.op === "replace") {
      if (!has(operation.blockId)) return "rejected";
      list = list.map((block) =>
        block.id === operation.blockId ? { ...block, text: operation.text ?? block.text } : block,
      );
    } else if (operation.op === "insert") {
      if ((operation.after !== undefined && !has(operation.after)) || operation.blocks.some((block) => has(block.id)))
        return "rejected";
      place(operation.blocks, operation);
    } else if (operation.op === "delete") {
      for (const id of operation.blockIds) {
        if (!has(id)) return "rejected";
        list = list.filter((block) => block.id !== id);
      }
    } else {
      if (!has(operation.blockId) || operation.after === operation.blockId) return "rejected";
      if (operation.after !== undefined && !has(operation.after)) return "rejected";
      const moved = list.find((block) => block.id === operation.blockId)!;
      list = list.filter((block) => block.id !== operation.blockId);
      place([moved], operation);
    }
  }
  return list;
}

describe("block edits", () => {
  it("agree with a plain list model, and their undo gives the page back", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 10 }),
        fc.array(operationArb, { minLength: 1, maxLength: 6 }),
        (count, operations) => {
          const before = page(count);
          const expected = model(before, operations);
          let after: Block[];
          try {
            after = applyBlockEdits(before, operations);
          } catch (error) {
            expect(error).toBeInstanceOf(EditRejected);
            expect(expected).toBe("rejected");
            return;
          }
          expect(after).toEqual(expected);
          const simulated = simulateBlockEdits(
            before.map((block, index) => ({ block, index })),
            count,
            operations,
          );
          expect(simulated.blockCount).toBe(after.length);
          expect(undoBlockEdits(after, simulated.undo)).toEqual(before);
        },
      ),
      { numRuns: 500 },
    );
  });

  it("needs only the blocks an edit names: the rest of the page does not change the outcome", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 10 }),
        fc.array(operationArb, { minLength: 1, maxLength: 6 }),
        (count, operations) => {
          const before = page(count);
          const named = new Set(operations.flatMap((o) => JSON.stringify(o).match(/[pn]\d/g) ?? []));
          const all = before.map((block, index) => ({ block, index }));
          const run = (located: typeof all) => {
            try {
              const { steps, changes, undo, insertedBlockIds, blockCount } = simulateBlockEdits(
                located,
                count,
                operations,
              );
              return { steps, changes, undo, insertedBlockIds, blockCount };
            } catch (error) {
              return (error as Error).message;
            }
          };
          expect(run(all.filter((entry) => named.has(entry.block.id)))).toEqual(run(all));
        },
      ),
      { numRuns: 300 },
    );
  });

  it("names the operation it refuses, and refuses a replace the contract would not accept", () => {
    expect(() =>
      applyBlockEdits(page(2), [
        { op: "replace", blockId: "p0", text: "a" },
        { op: "move", blockId: "p9", at: "end" },
      ]),
    ).toThrow("args.operations[1]: block p9 is not on the page");
    expect(() => applyBlockEdits(page(2), [{ op: "replace", blockId: "p0", checked: true }])).toThrow(
      /args.operations\[0\]: replace of block p0/,
    );
    expect(applyBlockEdits(page(1), [{ op: "replace", blockId: "p0", type: "todo" }])).toEqual([
      { id: "p0", type: "todo", text: "t0", checked: false },
    ]);
    expect(applyBlockEdits(page(1), [{ op: "replace", blockId: "p0", type: "heading", level: 3 }])).toEqual([
      { id: "p0", type: "heading", level: 3, text: "t0" },
    ]);
  });
});
