import { hrefProblem, type Mark, type MarkType } from "@mnote/contract";
import type { PhrasingContent } from "mdast";
import { gfmToMarkdown } from "mdast-util-gfm";
import type { Options } from "mdast-util-to-markdown";

// Inline content as mdast, apart from to-markdown.ts (which needs node:crypto): the panel's edit box
// (inline.ts) runs in the browser and uses the same rules.

/** The comment that carries a block's id in Markdown (decision 0026). */
export const idComment = (id: string) => `<!-- mnote:id=${id} -->`;
/** How a callout starts in Markdown: GitHub's alert syntax. */
export const CALLOUT_MARKER = "[!NOTE]";

export const OPTIONS: Options = {
  extensions: [gfmToMarkdown()],
  bullet: "-",
  emphasis: "*",
  strong: "*",
  rule: "-",
  fence: "`",
  fences: true,
  listItemIndent: "one",
  incrementListMarker: true,
};

/** Outermost first: a link holds bold, bold holds italic, …; inline code is always innermost (a leaf). */
const NESTING: readonly MarkType[] = ["link", "bold", "italic", "strike"];

interface Segment {
  text: string;
  marks: Map<MarkType, Mark>;
}

// Functions here are module-level rather than closures in the loops: the bridge runs under tsx, whose keepNames
// wraps every closure it creates in a naming call, which was most of a window's time.
const ascending = (a: number, b: number) => a - b;

/** Cuts the text where any mark starts or ends; each piece knows the marks over it. */
function segments(text: string, marks: readonly Mark[]): Segment[] {
  const cuts = new Set<number>([0, text.length]);
  for (const mark of marks) {
    cuts.add(Math.min(mark.start, text.length));
    cuts.add(Math.min(mark.end, text.length));
  }
  const points = [...cuts].sort(ascending);
  const out: Segment[] = [];
  for (let i = 0; i + 1 < points.length; i++) {
    const from = points[i]!;
    const to = points[i + 1]!;
    const over = new Map<MarkType, Mark>();
    for (const mark of marks) if (mark.start <= from && mark.end >= to) over.set(mark.type, mark);
    out.push({ text: text.slice(from, to), marks: over });
  }
  return out;
}

/** Plain text with its newlines as hard breaks (a blank line would end the paragraph). */
function textNodes(text: string): PhrasingContent[] {
  const out: PhrasingContent[] = [];
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    if (i > 0) out.push({ type: "break" });
    if (lines[i]) out.push({ type: "text", value: lines[i]! });
  }
  return out;
}

/** What a run of one mark type shares: the mark (a link: its target), or null outside it. */
function markKey(part: Segment, type: MarkType): string | null {
  const mark = part.marks.get(type);
  return mark ? (mark.href ?? "") : null;
}

/** Maximal runs of segments that share a mark (a link: the same target) become one node around the rest. */
function nest(parts: Segment[], level: number): PhrasingContent[] {
  if (level === NESTING.length) {
    const out: PhrasingContent[] = [];
    for (let i = 0; i < parts.length;) {
      const code = parts[i]!.marks.has("code");
      let j = i;
      let text = "";
      while (j < parts.length && parts[j]!.marks.has("code") === code) text += parts[j++]!.text;
      if (code) out.push({ type: "inlineCode", value: text });
      else out.push(...textNodes(text));
      i = j;
    }
    return out;
  }
  const type = NESTING[level]!;
  const out: PhrasingContent[] = [];
  for (let i = 0; i < parts.length;) {
    const k = markKey(parts[i]!, type);
    let j = i + 1;
    while (j < parts.length && markKey(parts[j]!, type) === k) j++;
    const inner = nest(parts.slice(i, j), level + 1);
    if (k === null) out.push(...inner);
    else if (type === "link") out.push({ type: "link", url: k, children: inner });
    else if (type === "bold") out.push({ type: "strong", children: inner });
    else if (type === "italic") out.push({ type: "emphasis", children: inner });
    else out.push({ type: "delete", children: inner });
    i = j;
  }
  return out;
}

/**
 * The link rule's verdict by href: `hrefProblem` parses a URL (a few µs), and a window's links are mostly a few
 * addresses written again and again, read on every Markdown read (decision 0049). A pure function of the href, so
 * kept without limit of time; bounded by count (when full, start again).
 */
const HREF_REFUSED = new Map<string, boolean>();
const HREF_VERDICTS = 10_000;
function refusedHref(href: string): boolean {
  let refused = HREF_REFUSED.get(href);
  if (refused === undefined) {
    refused = hrefProblem(href) !== null;
    if (HREF_REFUSED.size >= HREF_VERDICTS) HREF_REFUSED.clear();
    HREF_REFUSED.set(href, refused);
  }
  return refused;
}

/** A link the contract's one link rule (`hrefProblem`) refuses: `javascript:`, `data:`, relative, no target. */
const refusedLink = (mark: Mark) => mark.type === "link" && (mark.href === undefined || refusedHref(mark.href));
const keptMark = (mark: Mark) => !refusedLink(mark);

/**
 * The marks the writer writes: a stored link to a target the contract refuses is dropped and its text kept. No API
 * stores one, but the writer does not trust the database to hold only what the contract let in (issue 31, finding 9).
 */
export function writableMarks(marks: readonly Mark[]): readonly Mark[] {
  return marks.some(refusedLink) ? marks.filter(keptMark) : marks;
}

/** The same marks in the same order, field by field (what a kept fragment and a read-back are compared on). */
export function sameMarks(a: readonly Mark[], b: readonly Mark[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    if (x.type !== y.type || x.start !== y.start || x.end !== y.end || x.href !== y.href) return false;
  }
  return true;
}

/** A block's text and marks as Markdown inline content. */
export function phrasing(text: string, marks: readonly Mark[] = []): PhrasingContent[] {
  if (!text) return [];
  return nest(segments(text, writableMarks(marks)), 0);
}
