import type { Mark } from "@mnote/contract";
import type { Nodes, PhrasingContent } from "mdast";
import { fromMarkdown } from "mdast-util-from-markdown";
import { gfmFromMarkdown } from "mdast-util-gfm";
import { toMarkdown } from "mdast-util-to-markdown";
import { gfm } from "micromark-extension-gfm";
import { inline, MarkdownRefused } from "./from-markdown";
import { OPTIONS, phrasing } from "./phrasing";

/**
 * One block's text in Markdown, for a box where a person edits it (the panel's edit of a suggestion,
 * issue 32 item 6): the block's type and attributes are the box's fields, so only inline Markdown
 * counts here. `# `, `- `, `> `, fences and indented code are the person's text, not new blocks: those
 * constructs are off, and so is inline HTML (`<b>` is text) and images (`![a](b)` is a `!` and a link).
 * What stays is the page's formatting — bold, italic, strikethrough, code, links — read by the same
 * rules as a model's Markdown (decision 0026), a refused link refused with its reason.
 */
const INLINE_ONLY = {
  disable: {
    null: [
      "blockQuote",
      "codeFenced",
      "codeIndented",
      "definition",
      "headingAtx",
      "htmlFlow",
      "htmlText",
      "labelStartImage",
      "list",
      "setextUnderline",
      "thematicBreak",
      "table",
      "tasklistCheck",
      "gfmFootnoteDefinition",
      "gfmFootnoteCall",
      "gfmPotentialFootnoteCall",
    ],
  },
};

/** A block's text and marks as the inline Markdown a person edits (hard breaks for its newlines). */
export function inlineToMarkdown(text: string, marks: readonly Mark[] = []): string {
  if (!text) return "";
  const children: PhrasingContent[] = phrasing(text, marks);
  return toMarkdown({ type: "paragraph", children }, OPTIONS).replace(/\n$/, "");
}

/**
 * A person's inline Markdown as a block's text and marks. A blank line (a new paragraph) is kept as a line
 * break, the way a model's paragraphs in one list item are. Throws `MarkdownRefused` (with the line) for
 * what a page cannot hold: a link to a refused address, a footnote.
 */
export function markdownToInline(markdown: string): { text: string; marks: Mark[] } {
  const tree = fromMarkdown(markdown, {
    extensions: [gfm(), INLINE_ONLY],
    mdastExtensions: [gfmFromMarkdown()],
  });
  let text = "";
  const marks: Mark[] = [];
  for (const node of tree.children) {
    if (node.type !== "paragraph") {
      const line = (node as Nodes).position?.start.line ?? 1;
      throw new MarkdownRefused(`line ${line}: ${node.type} is not supported here`);
    }
    const part = inline(node.children);
    if (text) text += "\n";
    const offset = text.length;
    text += part.text;
    for (const mark of part.marks) marks.push({ ...mark, start: mark.start + offset, end: mark.end + offset });
  }
  return { text, marks };
}

export { MarkdownRefused };
