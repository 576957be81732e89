import fc from "fast-check";
import { type Block, hrefProblem } from "@mnote/contract";
import { describe, expect, it } from "vitest";
import { blocksToMarkdown, forgetInlineMarkdown } from "./index";
import { treeMarkdown } from "./to-markdown";

/**
 * Issue 31, finding 9: no API stores a `javascript:` link, but when the database holds one the Markdown writer must
 * not emit it. The writer applies the contract's one link rule (`hrefProblem`): a refused link is dropped, its text
 * kept; a good link is written as before.
 */
const REFUSED = [
  "javascript:alert(document.cookie)",
  "JaVaScRiPt:alert(1)",
  " javascript:alert(1)",
  "java\tscript:alert(1)",
  "data:text/html,<script>alert(1)</script>",
  "vbscript:msgbox(1)",
  "file:///etc/passwd",
  "/relative/path",
  "//evil.example/x",
  "",
];

const paragraph = (text: string, href: string | undefined): Block => ({
  id: "p1",
  type: "paragraph",
  text,
  marks: [{ type: "link", start: 0, end: text.length, href }],
});

describe("the Markdown writer drops links the contract refuses, keeping their text", () => {
  it("the refused targets are refused by the contract's rule (the same rule, one implementation)", () => {
    for (const href of REFUSED) expect(hrefProblem(href), href).not.toBeNull();
  });

  it.each(REFUSED)("a stored link to %j is written as its text alone", (href) => {
    forgetInlineMarkdown();
    const markdown = blocksToMarkdown([paragraph("raw", href)]);
    expect(markdown).toContain("raw");
    expect(markdown).not.toContain("](");
    expect(markdown.toLowerCase()).not.toContain("script:");
    expect(treeMarkdown([paragraph("raw", href)])).toBe(markdown);
  });

  it("a link without a target is dropped too; a good link is kept", () => {
    expect(blocksToMarkdown([paragraph("raw", undefined)])).not.toContain("](");
    expect(blocksToMarkdown([paragraph("docs", "https://example.com/docs")])).toContain(
      "[docs](https://example.com/docs)",
    );
  });

  it("whatever a stored href is, the writer emits a link only when the contract accepts it", () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.constantFrom(...REFUSED), fc.webUrl(), fc.string({ maxLength: 30 })),
        fc.constantFrom("raw", "two words", "a*b"),
        (href, text) => {
          const markdown = blocksToMarkdown([paragraph(text, href)]);
          if (hrefProblem(href) !== null) expect(markdown).not.toMatch(/\]\(/);
          else expect(markdown).toMatch(/\]\(/);
        },
      ),
    );
  });
});
