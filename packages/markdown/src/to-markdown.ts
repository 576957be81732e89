import type { Block, Mark, MarkType } from "@mnote/contract";
import type { BlockContent, Html, List, ListItem, Paragraph, PhrasingContent, Root, RootContent } from "mdast";
import { gfmToMarkdown } from "mdast-util-gfm";
import { type Options, toMarkdown } from "mdast-util-to-markdown";

/** The comment that carries a block's id in Markdown (decision 0026). */
export const idComment = (id: string) => `<!-- mnote:id=${id} -->`;
/** How a callout starts in Markdown: GitHub's alert syntax. */
export const CALLOUT_MARKER = "[!NOTE]";

const OPTIONS: Options = {
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

/** Cuts the text where any mark starts or ends; each piece knows the marks over it. */
function segments(text: string, marks: readonly Mark[]): Segment[] {
  const cuts = new Set<number>([0, text.length]);
  for (const mark of marks) {
    cuts.add(Math.min(mark.start, text.length));
    cuts.add(Math.min(mark.end, text.length));
  }
  const points = [...cuts].sort((a, b) => a - b);
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
  text.split("\n").forEach((line, i) => {
    if (i > 0) out.push({ type: "break" });
    if (line) out.push({ type: "text", value: line });
  });
  return out;
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
  const key = (part: Segment) => {
    const mark = part.marks.get(type);
    return mark ? (mark.href ?? "") : null;
  };
  const out: PhrasingContent[] = [];
  for (let i = 0; i < parts.length;) {
    const k = key(parts[i]!);
    let j = i + 1;
    while (j < parts.length && key(parts[j]!) === k) j++;
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

/** A block's text and marks as Markdown inline content. */
export function phrasing(text: string, marks: readonly Mark[] = []): PhrasingContent[] {
  if (!text) return [];
  return nest(segments(text, marks), 0);
}

/** The inline content and, at its end, the block's id comment. */
function withId(block: Block, before: PhrasingContent[] = []): Paragraph {
  const children = [...before, ...phrasing(block.text, "marks" in block ? block.marks : undefined)];
  const id: Html = { type: "html", value: idComment(block.id) };
  if (children.length > 0) children.push({ type: "text", value: " " });
  children.push(id);
  return { type: "paragraph", children };
}

const isList = (block: Block) => block.type === "bulleted" || block.type === "numbered" || block.type === "todo";

/**
 * A run of list items as nested lists: an item one level deeper goes into the item before it.
 * A jump of more than one level (the contract refuses it in what callers send) nests one level.
 */
function lists(run: Block[]): List[] {
  const roots: List[] = [];
  const open: List[] = [];
  for (const block of run) {
    const depth = Math.min("indent" in block ? (block.indent ?? 0) : 0, open.length);
    const ordered = block.type === "numbered";
    open.length = Math.min(open.length, depth + 1);
    let list = open[depth];
    if (!list || list.ordered !== ordered) {
      list = { type: "list", ordered, spread: false, children: [], ...(ordered ? { start: 1 } : {}) };
      if (depth === 0) roots.push(list);
      else open[depth - 1]!.children.at(-1)!.children.push(list);
      open[depth] = list;
      open.length = depth + 1;
    }
    const item: ListItem = {
      type: "listItem",
      spread: false,
      checked: block.type === "todo" ? block.checked : null,
      children: [withId(block)],
    };
    list.children.push(item);
  }
  return roots;
}

function flow(block: Block): RootContent[] {
  switch (block.type) {
    case "paragraph":
      return [withId(block)];
    case "heading":
      return [{ type: "heading", depth: block.level, children: withId(block).children }];
    case "quote":
      return [{ type: "blockquote", children: [withId(block)] }];
    case "callout":
      return [
        {
          type: "blockquote",
          children: [
            withId(block, [
              { type: "html", value: CALLOUT_MARKER },
              { type: "text", value: "\n" },
            ]),
          ],
        },
      ];
    case "code":
      return [
        { type: "html", value: idComment(block.id) },
        { type: "code", lang: block.language || null, value: block.text },
      ];
    case "divider":
      return [{ type: "html", value: idComment(block.id) }, { type: "thematicBreak" }];
    default:
      return [withId(block)];
  }
}

/** The mdast tree of some blocks, in order: one tree for a whole window, serialized once. */
export function blocksToTree(blocks: readonly Block[]): Root {
  const children: RootContent[] = [];
  for (let i = 0; i < blocks.length;) {
    if (isList(blocks[i]!)) {
      let j = i;
      while (j < blocks.length && isList(blocks[j]!)) j++;
      children.push(...lists(blocks.slice(i, j)));
      i = j;
    } else children.push(...(flow(blocks[i++]!) as BlockContent[]));
  }
  return { type: "root", children };
}

/**
 * Blocks as GitHub-flavoured Markdown (decision 0026): each block's id follows it as
 * `<!-- mnote:id=… -->` at the end of its first line, or, for code and dividers, on the line before it.
 */
export function blocksToMarkdown(blocks: readonly Block[]): string {
  if (blocks.length === 0) return "";
  return toMarkdown(blocksToTree(blocks), OPTIONS);
}
