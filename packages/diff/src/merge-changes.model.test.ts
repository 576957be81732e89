import type { Block, Change } from "@mnote/contract";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { diffBlocks, sameBlock } from "./diff-blocks";
import {
  applySteps,
  ChangeRefused,
  type ChosenChange,
  insertedBlocks,
  mergeChange,
  type PageNow,
  type Placement,
  placementsFromOrder,
  planChosen,
} from "./merge-changes";

/**
 * Model-based test of the block-level three-way merge (decision 0030): random sequences of proposals (computed on the
 * page as it was), a person's decisions on some of their changes (accept, keep mine, take the agent's, edit) and
 * direct writes. Two rules hold after every step:
 * - an applied change is never lost: the page is exactly what a model of "last write to each block wins" says, so a
 *   decision wrote the blocks of the changes it decided and nothing else;
 * - a change is never applied over a newer version of its block unless the person chose so (take the agent's, edit):
 *   an accepted update or delete finds its block exactly as the proposal saw it.
 */

interface Proposal {
  changes: Change[];
  placements: (Placement | null)[];
  decided: Set<number>;
}

type Action =
  | { kind: "propose"; edits: number[] }
  | { kind: "direct"; pick: number; op: 0 | 1 | 2 }
  | { kind: "decide"; proposal: number; picks: number[]; choice: number };

const action: fc.Arbitrary<Action> = fc.oneof(
  fc.record({ kind: fc.constant("propose" as const), edits: fc.array(fc.nat(99), { minLength: 1, maxLength: 4 }) }),
  fc.record({ kind: fc.constant("direct" as const), pick: fc.nat(99), op: fc.constantFrom<0 | 1 | 2>(0, 1, 2) }),
  fc.record({
    kind: fc.constant("decide" as const),
    proposal: fc.nat(99),
    picks: fc.array(fc.nat(99), { minLength: 1, maxLength: 4 }),
    choice: fc.nat(99),
  }),
);

const paragraph = (id: string, text: string): Block => ({ id, type: "paragraph", text });

function pageNow(blocks: readonly Block[]): PageNow {
  return { title: "T", options: {}, blocks: new Map(blocks.map((b) => [b.id, b])) };
}

function run(actions: Action[]) {
  let page: Block[] = [paragraph("a", "A0"), paragraph("b", "B0"), paragraph("c", "C0")];
  // The model: what each block on the page must hold, by id (insertion order is not modelled here).
  const expected = new Map(page.map((b) => [b.id, b.text]));
  const proposals: Proposal[] = [];
  let fresh = 0;
  const text = () => `t${++fresh}`;

  for (const step of actions) {
    if (step.kind === "propose") {
      // An agent's whole-page plan on the page as it is now: update, insert after, or delete some blocks.
      let after = [...page];
      for (const edit of step.edits) {
        if (after.length === 0) {
          after.push(paragraph(`n${++fresh}`, text()));
          continue;
        }
        const at = edit % after.length;
        const kind = Math.floor(edit / 34);
        if (kind === 0) after[at] = paragraph(after[at]!.id, text());
        else if (kind === 1) after.splice(at + 1, 0, paragraph(`n${++fresh}`, text()));
        else after = after.filter((_b, i) => i !== at);
      }
      const changes = diffBlocks(page, after).filter((c) => c.kind !== "move");
      if (changes.length)
        proposals.push({ changes, placements: placementsFromOrder(after, changes), decided: new Set() });
    } else if (step.kind === "direct") {
      // A person's own write: changes, deletes or inserts a block.
      if (page.length === 0 || step.op === 2) {
        const block = paragraph(`d${++fresh}`, text());
        page = [block, ...page];
        expected.set(block.id, block.text);
      } else {
        const at = step.pick % page.length;
        const id = page[at]!.id;
        if (step.op === 0) {
          page = page.map((b) => (b.id === id ? paragraph(id, text()) : b));
          expected.set(id, page[at]!.text);
        } else {
          page = page.filter((b) => b.id !== id);
          expected.delete(id);
        }
      }
    } else {
      const open = proposals.filter((p) => p.decided.size < p.changes.length);
      if (open.length === 0) continue;
      const proposal = open[step.proposal % open.length]!;
      const undecided = proposal.changes.flatMap((_c, i) => (proposal.decided.has(i) ? [] : [i]));
      const indices = [...new Set(step.picks.map((p) => undecided[p % undecided.length]!))];
      const now = pageNow(page);
      const inserted = insertedBlocks(proposal.changes, proposal.placements);
      const chosen: ChosenChange[] = [];
      for (const index of indices) {
        const change = proposal.changes[index]!;
        const merged = mergeChange(change, proposal.placements[index], now, inserted);
        proposal.decided.add(index);
        const choice = step.choice % 4; // 0, 1 accept; 2 keep mine / reject; 3 take the agent's or edit
        if (merged.state === "conflict") {
          // Accepting a conflict as if it were current is refused, writing nothing.
          expect(() => planChosen([{ index, change, placement: proposal.placements[index] }], now, inserted)).toThrow(
            ChangeRefused,
          );
          if (choice !== 3) continue;
          if (change.kind === "update" && merged.reason === "block_deleted") continue;
          chosen.push({ index, change, placement: proposal.placements[index], force: true });
        } else if (choice === 2) continue;
        else chosen.push({ index, change, placement: proposal.placements[index] });
      }
      const set = planChosen(chosen, now, inserted);
      // Never over a newer version: every step that is not the person's choice finds its block as proposed.
      for (const item of chosen) {
        if (item.force) continue;
        const there = now.blocks.get(blockId(item.change));
        if (item.change.kind === "update") expect(sameBlock(there!, item.change.before)).toBe(true);
        if (item.change.kind === "delete" && there) expect(sameBlock(there, item.change.block)).toBe(true);
        if (item.change.kind === "insert")
          expect(there === undefined || sameBlock(there, item.change.block)).toBe(true);
      }
      page = applySteps(page, set.steps);
      for (const item of chosen) {
        const c = item.change;
        if (c.kind === "update") expected.set(c.after.id, c.after.text);
        if (c.kind === "insert") expected.set(c.block.id, c.block.text);
        if (c.kind === "delete") expected.delete(c.block.id);
      }
    }
    // Never lose an applied change: each block holds what its last write left, and nothing else is on the page.
    expect(new Map(page.map((b) => [b.id, b.text]))).toEqual(expected);
    expect(new Set(page.map((b) => b.id)).size).toBe(page.length);
  }
}

function blockId(change: Change): string {
  if (change.kind === "update") return change.after.id;
  if (change.kind === "insert" || change.kind === "delete" || change.kind === "move") return change.block.id;
  return "";
}

describe("merge model: proposals, decisions and direct writes", () => {
  it("never lose an applied change and never apply a change over a newer version of its block", () => {
    fc.assert(
      fc.property(fc.array(action, { minLength: 1, maxLength: 40 }), (actions) => run(actions)),
      { numRuns: 300 },
    );
  });

  it("an insert lands after the block it was proposed after, or where a left-out insert before it would have", () => {
    const page = [paragraph("a", "A"), paragraph("b", "B")];
    const after = [paragraph("a", "A"), paragraph("x", "X"), paragraph("y", "Y"), paragraph("b", "B")];
    const changes = diffBlocks(page, after);
    const placements = placementsFromOrder(after, changes);
    const inserted = insertedBlocks(changes, placements);
    // Only y is accepted: x (which it follows) is left out, so y goes where x would have gone, after a.
    const yIndex = changes.findIndex((c) => c.kind === "insert" && c.block.id === "y");
    const set = planChosen(
      [{ index: yIndex, change: changes[yIndex]!, placement: placements[yIndex] }],
      pageNow(page),
      inserted,
    );
    expect(applySteps(page, set.steps).map((b) => b.id)).toEqual(["a", "y", "b"]);
  });
});
