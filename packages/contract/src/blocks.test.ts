import { describe, expect, it } from "vitest";
import { BlockInputSchema, BlockSchema, canonicalBlock, indentProblems } from "./blocks";
import { TOOLS } from "./tools";

const messages = (value: unknown) => {
  const parsed = BlockSchema.safeParse(value);
  return parsed.success ? [] : parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`);
};

describe("marks and indent on blocks (issue 21)", () => {
  it("keeps the seed's plain block valid and accepts marks and indent", () => {
    expect(messages({ id: "a", type: "paragraph", text: "plain" })).toEqual([]);
    expect(
      messages({
        id: "a",
        type: "bulleted",
        text: "see docs on Friday",
        indent: 2,
        marks: [
          { type: "link", start: 4, end: 8, href: "https://example.com/docs" },
          { type: "bold", start: 12, end: 18 },
          { type: "italic", start: 0, end: 18 },
        ],
      }),
    ).toEqual([]);
  });

  it("refuses forbidden link schemes, naming the field", () => {
    for (const href of ["javascript:alert(1)", "data:text/html,x", "/relative", "ftp://x.org/"]) {
      expect(
        messages({ id: "a", type: "paragraph", text: "click", marks: [{ type: "link", start: 0, end: 5, href }] }),
      ).toEqual([expect.stringMatching(/^marks\.0\.href: /)]);
    }
    expect(
      messages({
        id: "a",
        type: "paragraph",
        text: "mail",
        marks: [{ type: "link", start: 0, end: 4, href: "mailto:a@b.c" }],
      }),
    ).toEqual([]);
    expect(messages({ id: "a", type: "paragraph", text: "x", marks: [{ type: "link", start: 0, end: 1 }] })).toEqual([
      "marks.0.href: a link needs href",
    ]);
  });

  it("refuses a span outside the text and overlapping spans of one mark", () => {
    expect(messages({ id: "a", type: "paragraph", text: "abc", marks: [{ type: "bold", start: 1, end: 4 }] })).toEqual([
      "marks.0.end: a mark ends at 4, past the end of the text (3 characters)",
    ]);
    expect(
      messages({
        id: "a",
        type: "paragraph",
        text: "abcdef",
        marks: [
          { type: "bold", start: 0, end: 3 },
          { type: "bold", start: 2, end: 5 },
        ],
      }),
    ).toEqual(["marks.1: bold spans overlap (0-3 and 2-5)"]);
    expect(messages({ id: "a", type: "code", text: "x", language: "", marks: [] })).toHaveLength(1);
    expect(messages({ id: "a", type: "paragraph", text: "x", indent: 1 })).toHaveLength(1);
  });

  it("refuses an indent jump of more than one level in a save, naming the block", () => {
    expect(indentProblems([{ type: "bulleted" }, { type: "bulleted", indent: 2 }])).toEqual([
      { index: 1, message: "indent 2 is more than one level deeper than the block before (0)" },
    ]);
    const input = TOOLS["mnote.page.save"].args.safeParse({
      content: [
        { type: "bulleted", text: "a" },
        { type: "bulleted", text: "b", indent: 3 },
      ],
    });
    expect(input.success).toBe(false);
    expect(input.error!.issues[0]!.path).toEqual(["content", 1, "indent"]);
  });

  it("asks a save for exactly one of content or markdown", () => {
    const save = (args: object) => TOOLS["mnote.page.save"].args.safeParse(args).success;
    expect(save({ markdown: "# Hi" })).toBe(true);
    expect(save({ content: [] })).toBe(true);
    expect(save({})).toBe(false);
    expect(save({ markdown: "x", content: [] })).toBe(false);
  });

  it("has one canonical form: no empty marks, no indent 0, marks sorted", () => {
    const parsed = BlockInputSchema.parse({
      type: "bulleted",
      text: "abcd",
      indent: 0,
      marks: [
        { type: "italic", start: 2, end: 4 },
        { type: "bold", start: 0, end: 2 },
      ],
    });
    expect(canonicalBlock(parsed)).toEqual({
      type: "bulleted",
      text: "abcd",
      marks: [
        { type: "bold", start: 0, end: 2 },
        { type: "italic", start: 2, end: 4 },
      ],
    });
    expect(canonicalBlock({ type: "paragraph", text: "x", marks: [] })).toEqual({ type: "paragraph", text: "x" });
  });
});
