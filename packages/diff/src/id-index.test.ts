import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { IdIndex } from "./id-index";

describe("IdIndex", () => {
  it("finds every id at its position and misses absent ones", () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.string({ maxLength: 8 }), { maxLength: 200 }), fc.string(), (ids, probe) => {
        const index = new IdIndex(ids.map((id) => ({ id })));
        ids.forEach((id, position) => expect(index.get(id)).toBe(position));
        if (!ids.includes(probe)) expect(index.get(probe)).toBe(-1);
      }),
    );
  });

  it("stays correct when filled past its first sizes", () => {
    const ids = Array.from({ length: 5_000 }, (_, i) => `block-${i}`);
    const index = new IdIndex(ids.map((id) => ({ id })));
    expect(ids.every((id, position) => index.get(id) === position)).toBe(true);
    expect(index.get("block-5000")).toBe(-1);
  });

  it("answers the first position when an id repeats", () => {
    expect(new IdIndex([{ id: "a" }, { id: "b" }, { id: "a" }]).get("a")).toBe(0);
  });
});
