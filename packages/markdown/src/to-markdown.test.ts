import fc from "fast-check";
import { gfmToMarkdown } from "mdast-util-gfm";
import { toMarkdown } from "mdast-util-to-markdown";
import { describe, expect, it } from "vitest";
import type { Mark } from "@mnote/contract";
import { directInline, phrasing, plainInline } from "./to-markdown";

/** The library alone, as the window's serialization uses it (same options as to-markdown.ts). */
const library = (type: "paragraph" | "heading", text: string, marks: Mark[] = []) =>
  toMarkdown(
    {
      type: "root",
      children: [
        type === "heading"
          ? { type, depth: 2, children: phrasing(text, marks) }
          : { type, children: phrasing(text, marks) },
      ],
    },
    { extensions: [gfmToMarkdown()], bullet: "-", emphasis: "*", strong: "*", rule: "-", fence: "`", fences: true },
  ).replace(/\n$/, "");

/** Text built from what Markdown gives meaning to, beside ordinary words, so both answers of plainInline come up. */
const piece = fc.oneof(
  fc.constantFrom("word", "Paragraph", "1", "42", "www", "WWW", "https", "p", "s", "a", "é", "中文", "e.g", "x"),
  fc.constantFrom(" ", " ", ".", ",", ":", "/", "-", "+", ")", "(", "!", "?", "'", '"', "%", "$", ";"),
  fc.constantFrom(
    "*",
    "_",
    "`",
    "~",
    "[",
    "]",
    "<",
    ">",
    "#",
    "&",
    "|",
    "@",
    "\\",
    "=",
    "\n",
    "\t",
    "\u007f",
    "\u00a0",
  ),
);
const text = fc.array(piece, { minLength: 1, maxLength: 14 }).map((parts) => parts.join(""));

describe("plainInline: text written as it is", () => {
  it("is exactly what the library writes for that text, in a paragraph and in a heading", () => {
    let plain = 0;
    fc.assert(
      fc.property(text, (value) => {
        const fast = plainInline(value);
        if (fast === null) return;
        plain++;
        expect(fast).toBe(library("paragraph", value));
        expect(`## ${fast}`).toBe(library("heading", value));
      }),
      { numRuns: 5_000 },
    );
    // Not vacuous: a good share of the generated texts take the plain path.
    expect(plain).toBeGreaterThan(500);
  });

  it("leaves to the library what it would escape", () => {
    for (const value of [
      "a_b",
      "a\\b",
      "1. item",
      "- x",
      "see https://x.org",
      "www.x.org",
      "a@b.c",
      " lead",
      "trail ",
      "a\nb",
    ])
      expect(plainInline(value)).toBeNull();
    expect(plainInline("Paragraph 12 of the page: some words (and more), done.")).toBe(
      "Paragraph 12 of the page: some words (and more), done.",
    );
  });

  it("writes marks as the library does: bold, italic, strike, code and links around plain words", () => {
    const href = fc.constantFrom("https://example.com/a", "http://x.org/a_b?c=1", "https://x.org/(a)", "mailto:a@b.c");
    const type = fc.constantFrom<Mark["type"]>("bold", "italic", "strike", "code", "link");
    const spans = (length: number) =>
      fc.array(fc.tuple(fc.nat(length), fc.nat(length), type, href), { maxLength: 3 }).map((picked) => {
        const marks: Mark[] = [];
        for (const [a, b, kind, url] of [...picked].sort((x, y) => Math.min(x[0], x[1]) - Math.min(y[0], y[1]))) {
          const [start, end] = [Math.min(a, b), Math.max(a, b)];
          if (end === start || marks.some((m) => start < m.end && m.start < end)) continue;
          marks.push(kind === "link" ? { type: kind, start, end, href: url } : { type: kind, start, end });
        }
        return marks;
      });
    let direct = 0;
    fc.assert(
      fc.property(
        text.chain((value) => spans(value.length).map((marks) => [value, marks] as const)),
        ([value, marks]) => {
          const fast = directInline(value, marks);
          if (fast === null || marks.length === 0) return;
          direct++;
          expect(fast).toBe(library("paragraph", value, marks));
          expect(`## ${fast}`).toBe(library("heading", value, marks));
        },
      ),
      { numRuns: 20_000 },
    );
    expect(direct).toBeGreaterThan(300);
  });
});
