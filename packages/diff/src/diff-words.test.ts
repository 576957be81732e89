import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { diffWords, tokenize, type WordDiffSegment } from "./diff-words";

const joined = (segments: WordDiffSegment[], ...ops: WordDiffSegment["op"][]) =>
  segments
    .filter((segment) => ops.includes(segment.op))
    .map((segment) => segment.text)
    .join("");

describe("tokenize", () => {
  it("splits words, whitespace runs and edge punctuation", () => {
    expect(tokenize("Hello,  world! (see e-mail)")).toEqual([
      "Hello",
      ",",
      "  ",
      "world",
      "!",
      " ",
      "(",
      "see",
      " ",
      "e-mail",
      ")",
    ]);
  });

  it("keeps contractions, decimals and thousands whole", () => {
    expect(tokenize("don't pay 3.14 or 1,000.")).toEqual([
      "don't",
      " ",
      "pay",
      " ",
      "3.14",
      " ",
      "or",
      " ",
      "1,000",
      ".",
    ]);
  });

  it("makes each CJK character its own token", () => {
    expect(tokenize("今日はいい天気。")).toEqual(["今", "日", "は", "い", "い", "天", "気", "。"]);
    expect(tokenize("用Python写")).toEqual(["用", "Python", "写"]);
  });

  it("covers the whole text", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), (text) => {
        expect(tokenize(text).join("")).toBe(text);
      }),
    );
  });
});

describe("diffWords examples", () => {
  it("reports equal text as one equal segment", () => {
    expect(diffWords("same text", "same text")).toEqual([{ op: "equal", text: "same text" }]);
    expect(diffWords("", "")).toEqual([]);
  });

  it("handles text appearing or disappearing entirely", () => {
    expect(diffWords("", "new words")).toEqual([{ op: "insert", text: "new words" }]);
    expect(diffWords("old words", "")).toEqual([{ op: "delete", text: "old words" }]);
  });

  it("marks a changed word, not the whole sentence", () => {
    expect(diffWords("the quick brown fox", "the slow brown fox")).toEqual([
      { op: "equal", text: "the " },
      { op: "delete", text: "quick" },
      { op: "insert", text: "slow" },
      { op: "equal", text: " brown fox" },
    ]);
  });

  it("separates a word from the punctuation after it", () => {
    expect(diffWords("It works.", "It works!")).toEqual([
      { op: "equal", text: "It works" },
      { op: "delete", text: "." },
      { op: "insert", text: "!" },
    ]);
  });

  it("shows insertions and deletions in the middle", () => {
    expect(diffWords("a b c", "a x b c")).toEqual([
      { op: "equal", text: "a " },
      { op: "insert", text: "x " },
      { op: "equal", text: "b c" },
    ]);
    expect(diffWords("one two three four", "one four")).toEqual([
      { op: "equal", text: "one " },
      { op: "delete", text: "two three " },
      { op: "equal", text: "four" },
    ]);
  });

  it("joins neighbouring changed words into one change", () => {
    expect(diffWords("the cat sat down", "the dog ran down")).toEqual([
      { op: "equal", text: "the " },
      { op: "delete", text: "cat sat" },
      { op: "insert", text: "dog ran" },
      { op: "equal", text: " down" },
    ]);
  });

  it("diffs CJK text character by character", () => {
    expect(diffWords("我喜欢猫", "我喜欢狗")).toEqual([
      { op: "equal", text: "我喜欢" },
      { op: "delete", text: "猫" },
      { op: "insert", text: "狗" },
    ]);
  });
});

describe("diffWords properties", () => {
  /** Text from a few words and separators, so before and after share a lot. */
  const prose = fc
    .array(fc.constantFrom("a", "b", "cat", "dog", "猫", "犬", " ", "  ", ", ", ".", "\n", "don't"), { maxLength: 30 })
    .map((parts) => parts.join(""));
  const anyText = fc.oneof(prose, fc.string(), fc.string({ unit: "grapheme" }));

  it("rebuilds both texts from its segments", () => {
    fc.assert(
      fc.property(anyText, anyText, (before, after) => {
        const segments = diffWords(before, after);
        expect(joined(segments, "equal", "delete")).toBe(before);
        expect(joined(segments, "equal", "insert")).toBe(after);
      }),
    );
  });

  it("never has empty segments or two in a row with the same op", () => {
    fc.assert(
      fc.property(anyText, anyText, (before, after) => {
        const segments = diffWords(before, after);
        segments.forEach((segment, i) => {
          expect(segment.text).not.toBe("");
          if (i > 0) expect(segment.op).not.toBe(segments[i - 1]!.op);
        });
      }),
    );
  });

  it("deletes nothing when words are only added", () => {
    const wordList = fc.array(fc.constantFrom("a", "cat", "猫", "don't", "end."), { maxLength: 10 });
    fc.assert(
      fc.property(wordList, wordList, wordList, (start, middle, end) => {
        const segments = diffWords([...start, ...end].join(" "), [...start, ...middle, ...end].join(" "));
        expect(joined(segments, "delete")).toBe("");
      }),
    );
  });
});

describe("diffWords on long texts", () => {
  const words = (count: number, seed: number) => {
    let state = seed;
    const random = () => (state = (state * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    return Array.from({ length: count }, () => `w${Math.floor(random() * 500)}`).join(" ");
  };

  it("diffs a 20,000-character text with scattered edits quickly and exactly", () => {
    const before = words(4_500, 1);
    const tokens = before.split(" ");
    for (let i = 0; i < tokens.length; i += 50) tokens[i] = "EDITED";
    const after = tokens.join(" ");
    expect(before.length).toBeGreaterThan(20_000);

    const start = performance.now();
    const segments = diffWords(before, after);
    expect(performance.now() - start).toBeLessThan(1_000);
    expect(segments.filter((segment) => segment.op === "insert")).toHaveLength(90);
    expect(joined(segments, "equal", "insert")).toBe(after);
  });

  it("falls back to one delete and one insert when long texts share almost nothing", () => {
    const before = words(4_000, 1);
    const after = words(4_000, 2);
    const start = performance.now();
    const segments = diffWords(before, after);
    expect(performance.now() - start).toBeLessThan(1_000);
    expect(joined(segments, "equal", "delete")).toBe(before);
    expect(joined(segments, "equal", "insert")).toBe(after);
    expect(segments.filter((segment) => segment.op !== "equal").length).toBeLessThanOrEqual(2);
  });

  it("handles 20,000 CJK characters", () => {
    const before = "我喜欢猫。".repeat(4_000);
    const after = `${before.slice(0, 10_000)}狗${before.slice(10_000)}`;
    expect(diffWords(before, after)).toEqual([
      { op: "equal", text: before.slice(0, 10_000) },
      { op: "insert", text: "狗" },
      { op: "equal", text: before.slice(10_000) },
    ]);
  });
});
