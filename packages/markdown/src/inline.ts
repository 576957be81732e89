import { canonicalBlock, type Mark } from "@mnote/contract";
import type { Nodes, PhrasingContent } from "mdast";
import { fromMarkdown } from "mdast-util-from-markdown";
import { gfmFromMarkdown } from "mdast-util-gfm";
import { toMarkdown } from "mdast-util-to-markdown";
import { gfm } from "micromark-extension-gfm";
import { inline, MarkdownRefused } from "./from-markdown";
import { OPTIONS, phrasing, sameMarks, writableMarks } from "./phrasing";

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
  return checkedInline(toMarkdown({ type: "paragraph", children }, OPTIONS).replace(/\n$/, ""), text, marks, false);
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

/**
 * A guard on one known way mdast-util-to-markdown (2.2.5, the latest) writes inline Markdown that reads back as
 * other text. It leaves an underscore between two letters or digits unescaped (there it cannot open or close
 * emphasis), and later, to let a neighbouring `~~`, `*` or `_` run open or close, may write the letter next to it as
 * a character reference: `1_3` before a strikethrough becomes `1_&#x33;~~`, and the underscore, now before `&`, closes
 * an italic span written with `_`. The round-trip property found it in about one run in 40 (bold, italic and
 * strikethrough overlapping on text with such an underscore).
 *
 * Only Markdown with an underscore beside a character reference can show it, so only that is read back (a few tens
 * of microseconds, once per block version: fragments are kept). When it does not read back as the block's text and
 * marks, the text is written again with every underscore outside inline code standing in as a private-use letter that the library
 * treats like the letter it replaced, then written as `\_`; failing that too, without its marks: a page's text is
 * never changed by a read, at worst its formatting is dropped for that block.
 */
const UNDERSCORE_BESIDE_REFERENCE = /_&#|&#x[0-9A-Fa-f]+;_/;
const STAND_IN = "\uE000";
/** The stand-in as written: itself, or as a character reference where the library needed punctuation there. */
const STAND_INS = /(\\*)(?:\uE000|&#xE000;)/g;

export function checkedInline(markdown: string, text: string, marks: readonly Mark[], heading: boolean): string {
  if (!UNDERSCORE_BESIDE_REFERENCE.test(markdown)) return markdown;
  const written = writableMarks(marks);
  if (readsBack(markdown, text, written)) return markdown;
  if (!text.includes(STAND_IN)) {
    const standIn = render(phrasing(outsideCode(text, written), written), heading).replace(
      STAND_INS,
      // A backslash the library left bare before the stand-in (a letter needs no escape) would escape ours: an odd
      // run of them gets one more, as the library itself does before a character reference it writes.
      (_, backslashes: string) => `${backslashes}${backslashes.length % 2 ? "\\" : ""}\\_`,
    );
    if (readsBack(standIn, text, written)) return standIn;
  }
  return render(phrasing(text), heading);
}

/** The text with each underscore outside inline code as the stand-in (in a code span a backslash is itself). */
function outsideCode(text: string, marks: readonly Mark[]): string {
  const code = marks.filter((mark) => mark.type === "code");
  let out = "";
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    out += c === "_" && !code.some((mark) => mark.start <= i && i < mark.end) ? STAND_IN : c;
  }
  return out;
}

function render(children: PhrasingContent[], heading: boolean): string {
  if (heading) return toMarkdown({ type: "heading", depth: 1, children }, OPTIONS).replace(/^# ?/, "").trimEnd();
  return toMarkdown({ type: "paragraph", children }, OPTIONS).replace(/\n+$/, "");
}

function readsBack(markdown: string, text: string, marks: readonly Mark[]): boolean {
  let read: { text: string; marks: Mark[] };
  try {
    read = markdownToInline(markdown);
  } catch {
    return false;
  }
  if (read.text !== text) return false;
  const expected = canonicalBlock({ type: "paragraph", text, marks: [...marks] }) as { marks?: Mark[] };
  const actual = canonicalBlock({ type: "paragraph", text: read.text, marks: read.marks }) as { marks?: Mark[] };
  return sameMarks(expected.marks ?? [], actual.marks ?? []);
}
