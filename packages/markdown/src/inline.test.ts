import { canonicalBlock, type Mark } from "@mnote/contract";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { lines, marksFor } from "./fixtures/arbitraries";
import { inlineToMarkdown, MarkdownRefused, markdownToInline } from "./inline";

const canonical = (value: { text: string; marks: Mark[] }) =>
  canonicalBlock({ text: value.text, ...(value.marks.length ? { marks: value.marks } : {}) });

describe("one block's inline Markdown (the panel's edit box, issue 32 item 6)", () => {
  it("reads what a person types as marks: **Monday** is bold, not asterisks", () => {
    expect(markdownToInline("Standup on **Monday**")).toEqual({
      text: "Standup on Monday",
      marks: [{ type: "bold", start: 11, end: 17 }],
    });
    expect(markdownToInline("see [the plan](https://example.com/p) and `x`, *now* ~~later~~")).toEqual({
      text: "see the plan and x, now later",
      marks: [
        { type: "code", start: 17, end: 18 },
        { type: "italic", start: 20, end: 23 },
        { type: "link", start: 4, end: 12, href: "https://example.com/p" },
        { type: "strike", start: 24, end: 29 },
      ],
    });
  });

  it("keeps block syntax as the person's text: the block's type is the box's field, not a `#` or a `-`", () => {
    for (const text of [
      "# Not a heading",
      "- not a list",
      "> not a quote",
      "1. not numbered",
      "---",
      "    four spaces",
    ])
      expect(markdownToInline(text)).toEqual({ text: text.trimStart(), marks: [] });
    expect(markdownToInline("<b>x</b> ![alt](https://example.com/i.png)")).toEqual({
      text: "<b>x</b> !alt",
      marks: [{ type: "link", start: 10, end: 13, href: "https://example.com/i.png" }],
    });
  });

  it("refuses a link the page cannot hold, saying which, as a model's Markdown is refused", () => {
    expect(() => markdownToInline("click [here](javascript:alert(1))")).toThrow(MarkdownRefused);
    expect(() => markdownToInline("click [here](javascript:alert(1))")).toThrow(
      /line 1: a link to "javascript:alert\(1\)"/,
    );
  });

  it("a line break stays a line break, a blank line too", () => {
    expect(markdownToInline("one\ntwo\n\nthree").text).toBe("one\ntwo\nthree");
    expect(inlineToMarkdown("one\ntwo")).toBe("one\\\ntwo");
  });

  it("text and marks → Markdown → text and marks is the identity (the box shows the block's formatting and keeps it)", () => {
    fc.assert(
      fc.property(
        // Stored marks are canonical: a span never crosses a line break (canonicalBlock).
        lines.chain((text) => marksFor(text).map((marks) => canonical({ text, marks }))),
        (value) => {
          const markdown = inlineToMarkdown(value.text, value.marks ?? []);
          expect(canonical(markdownToInline(markdown))).toEqual(value);
        },
      ),
      { numRuns: 400 },
    );
  });
});
