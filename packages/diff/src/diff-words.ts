export type WordDiffOp = "equal" | "insert" | "delete";

export interface WordDiffSegment {
  op: WordDiffOp;
  text: string;
}

// Chinese and Japanese are written without spaces, so each of their characters is a token.
// Script_Extensions also catches the shared CJK punctuation and the kana length mark.
const CJK = String.raw`\p{scx=Han}\p{scx=Hiragana}\p{scx=Katakana}`;
const WORD_CHAR = String.raw`(?:(?![${CJK}])[\p{L}\p{N}\p{M}_])`;
// Joiners between word characters keep "don't", "e-mail", "3.14", "1,000" and "a/b" whole,
// while punctuation at a word's edge ("end.", "(see") becomes its own token.
const WORD = String.raw`${WORD_CHAR}+(?:['’.,:/@\-]${WORD_CHAR}+)*`;
const OTHER = String.raw`(?:(?![${CJK}])[^\s\p{L}\p{N}\p{M}_])+`;
const TOKEN = new RegExp(String.raw`\s+|[${CJK}]|${WORD}|${OTHER}`, "gu");

/**
 * Bounds the edit script Myers may search for. Past it the texts share too little for an
 * inline diff to help a reader, so the middle becomes one delete and one insert. The caps
 * hold the search to about MAX_WORK steps and its trace to about MAX_EDITS² numbers.
 */
const MAX_EDITS = 1000;
const MAX_WORK = 30_000_000;

/** Splits text into whitespace runs, words, punctuation runs and single CJK characters. */
export function tokenize(text: string): string[] {
  return text.match(TOKEN) ?? [];
}

/**
 * Word-level inline diff for rendering a changed block. Joining the equal and delete
 * segments gives `before`; joining the equal and insert segments gives `after`.
 */
export function diffWords(before: string, after: string): WordDiffSegment[] {
  const a = tokenize(before);
  const b = tokenize(after);
  const [prefix, suffix] = commonEnds(a, b);
  const middleA = a.slice(prefix, a.length - suffix);
  const middleB = b.slice(prefix, b.length - suffix);

  const hunks: Hunk[] = [{ equal: a.slice(0, prefix).join("") }];
  hunks.push(...(diffTokens(middleA, middleB) ?? [{ deleted: middleA.join(""), inserted: middleB.join("") }]));
  hunks.push({ equal: a.slice(a.length - suffix).join("") });
  return toSegments(foldLoneSpaces(hunks));
}

/** Equal tokens at the start and end: trimming them first makes the usual small edit cheap. */
function commonEnds(a: readonly string[], b: readonly string[]): [number, number] {
  let prefix = 0;
  while (prefix < a.length && prefix < b.length && a[prefix] === b[prefix]) prefix++;
  let suffix = 0;
  while (
    suffix < a.length - prefix &&
    suffix < b.length - prefix &&
    a[a.length - 1 - suffix] === b[b.length - 1 - suffix]
  ) {
    suffix++;
  }
  return [prefix, suffix];
}

/** Either unchanged text, or one changed stretch shown as its deleted then its inserted text. */
type Hunk = { equal: string } | { deleted: string; inserted: string };

/** Myers' O(ND) diff over tokens, or null when the edit script is longer than the caps allow. */
function diffTokens(a: readonly string[], b: readonly string[]): Hunk[] | null {
  if (a.length === 0 || b.length === 0) return [{ deleted: a.join(""), inserted: b.join("") }];
  const [numbersA, numbersB] = intern(a, b);
  const maxEdits = Math.min(a.length + b.length, MAX_EDITS, Math.floor(MAX_WORK / (a.length + b.length)));
  const trace = shortestEditTrace(numbersA, numbersB, maxEdits);
  return trace && toHunks(a, b, backtrack(trace, a.length, b.length));
}

/** Numbers the tokens so the inner loop compares integers, not strings. */
function intern(a: readonly string[], b: readonly string[]): [Int32Array, Int32Array] {
  const numbers = new Map<string, number>();
  const number = (token: string) => {
    let n = numbers.get(token);
    if (n === undefined) numbers.set(token, (n = numbers.size));
    return n;
  };
  return [Int32Array.from(a, number), Int32Array.from(b, number)];
}

/**
 * Runs Myers' greedy search. trace[d][k + d] is the furthest x reached on diagonal k = x - y
 * with d edits; only the diagonals -d..d exist at step d, which keeps the trace at O(D²).
 */
function shortestEditTrace(a: Int32Array, b: Int32Array, maxEdits: number): Int32Array[] | null {
  const n = a.length;
  const m = b.length;
  const trace: Int32Array[] = [];
  for (let d = 0; d <= maxEdits; d++) {
    const previous = trace[d - 1];
    const row = new Int32Array(2 * d + 1);
    for (let k = -d; k <= d; k += 2) {
      let x = previous ? startOfStep(previous, d, k) : 0;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      row[k + d] = x;
      if (x >= n && y >= m) {
        trace.push(row);
        return trace;
      }
    }
    trace.push(row);
  }
  return null;
}

/**
 * The diagonal that step d enters diagonal k from: k + 1 (by an insert) or k - 1 (by a
 * delete), whichever got further with d - 1 edits. `previous` holds step d - 1's diagonals.
 */
function cameFrom(previous: Int32Array, d: number, k: number): number {
  if (k === -d) return k + 1;
  if (k === d) return k - 1;
  return reached(previous, d - 1, k - 1) < reached(previous, d - 1, k + 1) ? k + 1 : k - 1;
}

function reached(row: Int32Array, d: number, k: number): number {
  return row[k + d]!;
}

/** Where step d on diagonal k starts its run of equal tokens, just after its one edit. */
function startOfStep(previous: Int32Array, d: number, k: number): number {
  const from = cameFrom(previous, d, k);
  const x = reached(previous, d - 1, from);
  return from === k + 1 ? x : x + 1;
}

/** Walks the trace back from the end, returning one op per token in text order. */
function backtrack(trace: readonly Int32Array[], n: number, m: number): WordDiffOp[] {
  const ops: WordDiffOp[] = [];
  let x = n;
  let y = m;
  for (let d = trace.length - 1; d >= 0; d--) {
    const k = x - y;
    const previous = trace[d - 1];
    const startX = previous ? startOfStep(previous, d, k) : 0;
    for (; x > startX; x--, y--) ops.push("equal");
    if (!previous) break;
    const from = cameFrom(previous, d, k);
    ops.push(from === k + 1 ? "insert" : "delete");
    x = reached(previous, d - 1, from);
    y = x - from;
  }
  return ops.reverse();
}

/** Groups token ops into hunks, each changed stretch with its deletions before its insertions. */
function toHunks(a: readonly string[], b: readonly string[], ops: readonly WordDiffOp[]): Hunk[] {
  const hunks: Hunk[] = [];
  let i = 0;
  let j = 0;
  for (let at = 0; at < ops.length;) {
    let equal = "";
    for (; ops[at] === "equal"; at++, i++, j++) equal += a[i]!;
    if (equal) hunks.push({ equal });
    let deleted = "";
    let inserted = "";
    for (; at < ops.length && ops[at] !== "equal"; at++) {
      if (ops[at] === "delete") deleted += a[i++]!;
      else inserted += b[j++]!;
    }
    if (deleted || inserted) hunks.push({ deleted, inserted });
  }
  return hunks;
}

/**
 * "the cat sat" → "the dog ran" reads better as one change "cat sat" → "dog ran" than as
 * two changes around an unchanged space, so a whitespace-only gap between two replacements
 * is folded into them. Pure insertions or deletions are left alone: folding would turn them
 * into replacements of a space.
 */
function foldLoneSpaces(hunks: readonly Hunk[]): Hunk[] {
  const folded: Hunk[] = [];
  for (const hunk of hunks) {
    if ("equal" in hunk && hunk.equal === "") continue;
    const gap = folded[folded.length - 1];
    const previous = folded[folded.length - 2];
    if (
      isReplacement(hunk) &&
      gap &&
      "equal" in gap &&
      /^\s+$/.test(gap.equal) &&
      previous &&
      isReplacement(previous)
    ) {
      folded.splice(-2, 2, {
        deleted: previous.deleted + gap.equal + hunk.deleted,
        inserted: previous.inserted + gap.equal + hunk.inserted,
      });
    } else {
      folded.push(hunk);
    }
  }
  return folded;
}

function isReplacement(hunk: Hunk): hunk is { deleted: string; inserted: string } {
  return !("equal" in hunk) && hunk.deleted !== "" && hunk.inserted !== "";
}

function toSegments(hunks: readonly Hunk[]): WordDiffSegment[] {
  const segments: WordDiffSegment[] = [];
  const push = (op: WordDiffOp, text: string) => {
    if (!text) return;
    const last = segments[segments.length - 1];
    if (last?.op === op) last.text += text;
    else segments.push({ op, text });
  };
  for (const hunk of hunks) {
    if ("equal" in hunk) push("equal", hunk.equal);
    else {
      push("delete", hunk.deleted);
      push("insert", hunk.inserted);
    }
  }
  return segments;
}
