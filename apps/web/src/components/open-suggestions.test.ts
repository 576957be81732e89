import type { Block, Change } from "@mnote/contract";
import { describe, expect, it } from "vitest";
import { type ChangeOnPage, openRows } from "./open-suggestions";

const p = (id: string, text: string): Block => ({ id, type: "paragraph", text });
const A = p("a", "Alpha");
const B = p("b", "Beta");
const C = p("c", "Gamma");
const change = (index: number, proposed: Change, state: ChangeOnPage["state"] = "pending"): ChangeOnPage => ({
  index,
  state,
  proposed,
});
const shape = (rows: ReturnType<typeof openRows>) =>
  rows.map((row) => (row.row === "same" ? row.block.id : `${row.row}:${row.change}:${row.block.id}`));

describe("a proposal's open changes on the page as it is now (decision 0030)", () => {
  const changes = [
    change(0, { kind: "insert", index: 1, block: p("n", "New") }),
    change(1, { kind: "update", index: 2, before: B, after: p("b", "Beta 2") }),
    change(2, { kind: "delete", index: 3, block: C }),
  ];
  const placements = [{ after: "a" }, null, null];

  it("lays each change on its anchor: an insert after its block, an update and a delete on theirs", () => {
    expect(shape(openRows([A, B, C], changes, placements))).toEqual(["a", "insert:0:n", "update:1:b", "delete:2:c"]);
  });

  it("a change decided since is part of the page: the others stay on their blocks, not shifted by position", () => {
    const now = [A, p("n", "New"), B, C];
    const decided = [{ ...changes[0]!, state: "applied" as const }, changes[1]!, changes[2]!];
    expect(shape(openRows(now, decided, placements))).toEqual(["a", "n", "update:1:b", "delete:2:c"]);
  });

  it("a block written above since does not move a change off its block", () => {
    const now = [p("z", "Written since"), A, B, C];
    expect(shape(openRows(now, changes, placements))).toEqual(["z", "a", "insert:0:n", "update:1:b", "delete:2:c"]);
  });

  it("a change whose block was deleted since is still shown, at the end", () => {
    const gone = [changes[0]!, { ...changes[1]!, state: "conflict" as const }, changes[2]!];
    expect(shape(openRows([A, C], gone, placements))).toEqual(["a", "insert:0:n", "delete:2:c", "update:1:b"]);
  });

  it("an update's row compares with the block as it is now", () => {
    const now = [A, p("b", "Beta, edited by Ben"), C];
    const row = openRows(now, [{ ...changes[1]!, state: "conflict" }], [null]).find((r) => r.row === "update");
    expect(row).toMatchObject({ before: { text: "Beta, edited by Ben" }, block: { text: "Beta 2" } });
  });
});
