/**
 * Positions (ascending) of one longest strictly increasing subsequence of `values`.
 * Patience sorting keeps this O(n log n), which the block diff needs at 10,000 blocks.
 */
export function longestIncreasingSubsequence(values: ArrayLike<number>): number[] {
  // Run l + 1 (0-based l) is the increasing run of that length with the smallest last value
  // seen so far; keeping the smallest tail leaves the most room for later values to extend it.
  // Tail values sit in their own array so the binary search reads one contiguous array.
  const tailValue = new Float64Array(values.length);
  const tailPosition = new Int32Array(values.length);
  const previous = new Int32Array(values.length);
  let runs = 0;

  for (let i = 0; i < values.length; i++) {
    const value = values[i]!;
    const length = countBelow(tailValue, runs, value);
    previous[i] = length > 0 ? tailPosition[length - 1]! : -1;
    tailValue[length] = value;
    tailPosition[length] = i;
    if (length === runs) runs++;
  }

  const result = new Array<number>(runs);
  let position = runs > 0 ? tailPosition[runs - 1]! : -1;
  for (let l = runs - 1; l >= 0; l--) {
    result[l] = position;
    position = previous[position]!;
  }
  return result;
}

/** How many of the first `count` (ascending) tail values are below `value`. */
function countBelow(tails: Float64Array, count: number, value: number): number {
  let lo = 0;
  let hi = count;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (tails[mid]! < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
