import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { searchWords, segmentedWords } from "./search-words";

// Characters that move word boundaries (the joiners `. , : ; ' _`), every other kind of ASCII character, and a few
// beyond ASCII that must go to the segmenter: the plain path's answer must be the segmenter's for all of them.
const alphabet = [
  ..."aZq09 .,:;'_-!?\"()[]{}@#$%&*+/\\<=>^`|~",
  "\t",
  "\n",
  "\r",
  "\u0001",
  "\u000b",
  "é",
  "项",
  "\u00a0",
  "\u200d",
];
const text = fc.array(fc.constantFrom(...alphabet), { maxLength: 40 }).map((chars) => chars.join(""));

describe("searchWords", () => {
  it("answers what the segmenter answers, for plain ASCII texts and all others", () => {
    fc.assert(
      fc.property(text, (value) => {
        expect(searchWords(value)).toEqual(segmentedWords(value));
      }),
      { numRuns: 5000 },
    );
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 30 }), (value) => {
        expect(searchWords(value)).toEqual(segmentedWords(value));
      }),
      { numRuns: 2000 },
    );
  });

  it("finds the words of ordinary sentences, and leaves joined ones to the segmenter", () => {
    expect(searchWords("Appended paragraph 17: a sentence of ordinary length.")).toEqual([
      "appended",
      "paragraph",
      "17",
      "a",
      "sentence",
      "of",
      "ordinary",
      "length",
    ]);
    expect(searchWords("Pi is 3.14, don't snake_case")).toEqual(["pi", "is", "3.14", "don't", "snake_case"]);
    expect(searchWords("项目计划 plan")).toEqual(["项目", "计划", "plan"]);
  });

  it("keeps at most 4,000 words of one text, on either path", () => {
    const many = Array.from({ length: 4100 }, (_, i) => `w${i}`).join(" ");
    expect(searchWords(many)).toHaveLength(4000);
    expect(searchWords(many)).toEqual(segmentedWords(many));
  });
});
