/**
 * Positions (ascending) of one longest strictly increasing subsequence of `values`.
 * Patience sorting keeps this O(n log n), which the block diff needs at 10,000 blocks.
 */
export function longestIncreasingSubsequence(values: readonly number[]): number[] {
  // tails[l] is the position ending the increasing run of length l + 1 with the smallest last value;
  // keeping the smallest tail leaves the most room for later values to extend it.
  const tails: number[] = [];
  const previous = new Int32Array(values.length);

  for (let i = 0; i < values.length; i++) {
    const length = runsBelow(values, tails, values[i]!);
    previous[i] = length > 0 ? tails[length - 1]! : -1;
    tails[length] = i;
  }

  const result = new Array<number>(tails.length);
  let position = tails.length > 0 ? tails[tails.length - 1]! : -1;
  for (let l = tails.length - 1; l >= 0; l--) {
    result[l] = position;
    position = previous[position]!;
  }
  return result;
}

/** How many runs in `tails` end below `value`: the run `value` extends is the last of them. */
function runsBelow(values: readonly number[], tails: readonly number[], value: number): number {
  let lo = 0;
  let hi = tails.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (values[tails[mid]!]! < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
