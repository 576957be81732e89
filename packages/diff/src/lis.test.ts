import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { longestIncreasingSubsequence } from "./lis";

/** Quadratic DP, obviously right, to check the patience-sorting length against. */
function lisLength(values: readonly number[]): number {
  const best = values.map(() => 1);
  values.forEach((v, i) => {
    for (let j = 0; j < i; j++) if (values[j]! < v) best[i] = Math.max(best[i]!, best[j]! + 1);
  });
  return Math.max(0, ...best);
}

describe("longestIncreasingSubsequence", () => {
  it("handles the empty and already-sorted cases", () => {
    expect(longestIncreasingSubsequence([])).toEqual([]);
    expect(longestIncreasingSubsequence([0, 1, 2])).toEqual([0, 1, 2]);
  });

  it("picks a longest run", () => {
    const values = [3, 0, 4, 1, 2];
    expect(longestIncreasingSubsequence(values).map((i) => values[i])).toEqual([0, 1, 2]);
  });

  it("returns ascending positions of strictly increasing values, as many as possible", () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 20 }), { maxLength: 30 }), (values) => {
        const positions = longestIncreasingSubsequence(values);
        expect(positions.length).toBe(lisLength(values));
        for (let i = 1; i < positions.length; i++) {
          expect(positions[i]!).toBeGreaterThan(positions[i - 1]!);
          expect(values[positions[i]!]!).toBeGreaterThan(values[positions[i - 1]!]!);
        }
      }),
    );
  });
});
