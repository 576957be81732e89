import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { type Block, BlockInputSchema, canonicalBlock } from "@mnote/contract";
import { describe, expect, it } from "vitest";
import { blocksToMarkdown, MarkdownRefused, markdownToBlocks } from "./index";

const fixtures = join(import.meta.dirname, "fixtures");
/** Blocks as the router stores them: ids assigned in order where the Markdown had none. */
const stored = (markdown: string): Block[] =>
  markdownToBlocks(markdown).map((block, i) => canonicalBlock({ id: `b${i}`, ...BlockInputSchema.parse(block) }));

describe("Markdown → blocks (decision 0026)", () => {
  it("reads every construct of the subset", () => {
    const blocks = stored(readFileSync(join(fixtures, "notes.md"), "utf8"));
    expect(blocks.map((b) => [b.type, b.text, "indent" in b ? (b.indent ?? 0) : 0])).toEqual([
      ["heading", "Weekly notes", 0],
      ["paragraph", "Ship on Friday, see the docs and Monday make ship.", 0],
      ["bulleted", "Launch", 0],
      ["bulleted", "Copy final", 1],
      ["todo", "Legal read", 2],
      ["todo", "Screenshots", 1],
      ["bulleted", "Follow-up", 0],
      ["numbered", "First", 0],
      ["numbered", "Second", 0],
      ["quote", "Quote with emphasis", 0],
      ["callout", "Deadline is fixed.", 0],
      ["code", "const x = 1;", 0],
      ["divider", "", 0],
    ]);
    expect(blocks[1]).toMatchObject({
      marks: [
        { type: "bold", start: 8, end: 14 },
        { type: "link", start: 20, end: 28, href: "https://example.com/docs" },
        { type: "strike", start: 33, end: 39 },
        { type: "code", start: 40, end: 49 },
      ],
    });
    expect(blocks[4]).toMatchObject({ checked: true });
    expect(blocks[11]).toMatchObject({ language: "ts" });
  });

  it("takes ids from the id comments, and leaves blocks without one to the server", () => {
    const blocks = markdownToBlocks(readFileSync(join(fixtures, "with-ids.md"), "utf8"));
    expect(blocks.map((b) => b.id)).toEqual(["h1", "p1", "l1", "l2", "c1"]);
    expect(markdownToBlocks("plain\n\n- item")).toEqual([
      { type: "paragraph", text: "plain" },
      { type: "bulleted", text: "item" },
    ]);
  });

  it("keeps the model's variants: * bullets, 4-space nesting, line breaks, #### as level 3, ~~~ fences", () => {
    const blocks = stored(readFileSync(join(fixtures, "model-style.md"), "utf8"));
    expect(blocks.map((b) => b.type)).toEqual([
      "heading",
      "bulleted",
      "bulleted",
      "bulleted",
      "paragraph",
      "heading",
      "code",
      "divider",
    ]);
    expect(blocks[3]).toMatchObject({ text: "four-space nesting", indent: 1 });
    expect(blocks[4]).toMatchObject({ text: "Paragraph one\ncontinues on a second line." });
    expect(blocks[5]).toMatchObject({ level: 3 });
  });

  it("is stable on the fixture corpus: Markdown → page → Markdown → page → Markdown", () => {
    for (const file of readdirSync(fixtures)) {
      const once = blocksToMarkdown(stored(readFileSync(join(fixtures, file), "utf8")));
      expect(blocksToMarkdown(stored(once)), file).toBe(once);
      expect(stored(once).length, file).toBe(stored(readFileSync(join(fixtures, file), "utf8")).length);
    }
  });

  it("refuses what the subset cannot hold, naming the construct and its line", () => {
    const refusal = (markdown: string) => {
      try {
        markdownToBlocks(markdown);
      } catch (error) {
        if (error instanceof MarkdownRefused) return error.message;
        throw error;
      }
      return null;
    };
    expect(refusal("intro\n\n| a | b |\n| - | - |\n| 1 | 2 |\n")).toBe(
      "line 3: a table (write its rows as a list, or put it in a code block) is not supported in mnote pages",
    );
    expect(refusal("see ![logo](https://x.org/l.png)")).toBe("line 1: an image is not supported in mnote pages");
    expect(refusal("a\n\n<div>hi</div>")).toBe("line 3: raw HTML is not supported in mnote pages");
    expect(refusal("a <b>bold</b>")).toBe("line 1: raw HTML is not supported in mnote pages");
    expect(refusal("a[^1]\n\n[^1]: note")).toMatch(/^line 1: a footnote/);
    expect(refusal("[x][ref]\n\n[ref]: https://x.org")).toMatch(/^line 1: a reference-style link/);
    expect(refusal("> - list in a quote")).toBe("line 1: a list inside a quote is not supported in mnote pages");
    expect(refusal("[click](javascript:alert(1))")).toBe(
      'line 1: a link to "javascript:alert(1)" (a link\'s scheme must be http, https or mailto, not "javascript:") is not supported in mnote pages',
    );
    expect(refusal("[rel](/docs)")).toMatch(/^line 1: a link to "\/docs" \(a link must be an absolute/);
    // Malformed Markdown is still text: CommonMark has no syntax errors.
    expect(markdownToBlocks("**not closed and [bracket")).toEqual([
      { type: "paragraph", text: "**not closed and [bracket" },
    ]);
  });
});
