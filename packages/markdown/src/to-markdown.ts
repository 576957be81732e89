import { randomBytes } from "node:crypto";
import type { Block, Mark, MarkType } from "@mnote/contract";
import type { BlockContent, Html, List, ListItem, Paragraph, Root, RootContent } from "mdast";
import { toMarkdown } from "mdast-util-to-markdown";
import { CALLOUT_MARKER, idComment, OPTIONS, phrasing, writableMarks } from "./phrasing";

export { CALLOUT_MARKER, idComment, phrasing };

/**
 * Serialized inline content (a block's text and marks as Markdown), by context and content. Serializing
 * is mdast-util-to-markdown's `safe` escaping over dozens of patterns per text node: about 0.1 ms a
 * block, ten times what the whole blocks-form read costs. A block's inline Markdown depends only on
 * its text, marks and whether it is a heading, so it is worked out once (for all new ones of a window
 * in one pass) and kept, and the window's tree holds it as raw nodes: the one serialization of the
 * tree then lays out blocks, lists, quotes and fences without escaping again.
 */
const FRAGMENTS = new Map<string, string>();
const FRAGMENT_CACHE_SIZE = 50_000;
/** Cuts one pass's output into its fragments; random, so no page text can contain it unescaped. */
const CUT = `<!-- mnote:cut:${randomBytes(8).toString("hex")} -->`;

type InlineContext = "heading" | "paragraph";
const inlineMarks = (block: Block): readonly Mark[] => ("marks" in block ? writableMarks(block.marks ?? []) : []);
const fragmentKey = (context: InlineContext, block: Block) => {
  let key = `${context === "heading" ? "h" : "p"}${block.text}\u0000`;
  for (const mark of inlineMarks(block)) key += `${mark.type} ${mark.start} ${mark.end} ${mark.href ?? ""}\u0000`;
  return key;
};

/**
 * Inline content with nothing in it the library would escape, written directly: what most prose is, and the
 * library's `safe` pass is the whole cost of a first read. The tests are the library's own unsafe patterns
 * (mdast-util-to-markdown's `unsafe.js`; GFM's autolink literal, strikethrough and table rules) read conservatively:
 * text with none of their characters, except those unsafe only at a line's start or beside a character refused here
 * (`.` `-` `+` `)` `:` `(` `!` `"` `'`) and those the library escapes wherever they stand (`*` `` ` `` `~`, written
 * with a backslash as it writes them); no space at either end; a mark (bold, italic, strike, code, link) only around
 * one run of letters, digits and inner spaces, never beside another mark, a link only to a plain address. Anything
 * else is the library's. A differential property test holds every answer equal to the library's.
 */
// Three tests rather than one alternation: a bare character class is scanned without backtracking, about half the
// time of `class|:\/|[Ww]{3}\.` on ordinary prose, and this runs for every run of text of every Markdown read.
const TEXT_UNSAFE_CHARACTER = /[\n\r\t\u007F#&<=>[\\\]_|@]/;
const WWW_DOT = /[Ww]{3}\./;
const textUnsafe = (value: string) => TEXT_UNSAFE_CHARACTER.test(value) || value.includes(":/") || WWW_DOT.test(value);
/** Unsafe anywhere in text, so the library always writes them backslash-escaped (there is no backslash before them). */
const ALWAYS_ESCAPED = /[*`~]/g;
const HAS_ALWAYS_ESCAPED = /[*`~]/;
const LINE_START_UNSAFE = /^[\s.+:-]|^\d+[.)]/;
const MARKED_TEXT = /^[\p{L}\p{N}](?:[\p{L}\p{N} ,'-]*[\p{L}\p{N}])?$/u;
/** A link's text has no flanking rules: inner spaces at its ends are fine. */
const LINK_TEXT = /^[\p{L}\p{N} ,'-]*[\p{L}\p{N}][\p{L}\p{N} ,'-]*$/u;
const PLAIN_URL = /^(?:https?:\/\/)[A-Za-z0-9./_~%?=+-]+$/;

const byStart = (a: Mark, b: Mark) => a.start - b.start;
const DIRECT_DELIMITER: Partial<Record<MarkType, string>> = { bold: "**", italic: "*", strike: "~~", code: "`" };

/** A run of unmarked text, or null when the library would escape it here (first/last: at the block's ends). */
function directText(value: string, first: boolean, last: boolean, beforeLink: boolean): string | null {
  if (textUnsafe(value)) return null;
  if (first && LINE_START_UNSAFE.test(value)) return null;
  if (last && /\s$/.test(value)) return null;
  // `!` before a link would make it an image.
  if (beforeLink && value.endsWith("!")) return null;
  return HAS_ALWAYS_ESCAPED.test(value) ? value.replace(ALWAYS_ESCAPED, "\\$&") : value;
}

export function directInline(text: string, given: readonly Mark[] = []): string | null {
  if (!text) return null;
  const marks = writableMarks(given);
  if (marks.length === 0) return directText(text, true, true, false);
  const sorted = marks.length === 1 ? marks : [...marks].sort(byStart);
  let out = "";
  let at = 0;
  for (const mark of sorted) {
    // Overlapping marks nest, and marks side by side meet: both are the library's to write.
    if (mark.start < at || mark.end <= mark.start || (mark.start === at && at > 0)) return null;
    if (mark.start > at) {
      const before = directText(text.slice(at, mark.start), at === 0, false, mark.type === "link");
      if (before === null) return null;
      out += before;
    }
    const inner = text.slice(mark.start, mark.end);
    if (mark.type === "link") {
      if (!PLAIN_URL.test(mark.href ?? "") || !LINK_TEXT.test(inner)) return null;
      out += `[${inner}](${mark.href})`;
    } else if (MARKED_TEXT.test(inner)) out += `${DIRECT_DELIMITER[mark.type]}${inner}${DIRECT_DELIMITER[mark.type]}`;
    else return null;
    at = mark.end;
  }
  if (at < text.length) {
    const after = directText(text.slice(at), false, true, false);
    if (after === null) return null;
    out += after;
  }
  return out;
}

/** Plain text written as it is (see directInline), or null when the library must escape it. */
export function plainInline(text: string): string | null {
  return directInline(text);
}

/** Empties the kept inline Markdown (tests compare kept and fresh answers). */
export function forgetInlineMarkdown() {
  FRAGMENTS.clear();
}

/** The inline Markdown of every given block that has not been worked out yet, in one pass of the library. */
function prepareFragments(items: readonly { context: InlineContext; block: Block; key: string }[]) {
  const missing = new Map<string, { context: InlineContext; block: Block }>();
  for (const item of items) {
    if (FRAGMENTS.has(item.key) || missing.has(item.key)) continue;
    if (!item.block.text) FRAGMENTS.set(item.key, "");
    else missing.set(item.key, item);
  }
  if (missing.size === 0) return;
  // Bounded: when full, start again (the next reads work their windows out anew).
  if (FRAGMENTS.size + missing.size > FRAGMENT_CACHE_SIZE) FRAGMENTS.clear();
  const children: RootContent[] = [];
  for (const { context, block } of missing.values()) {
    // An ATX heading is one line: a line break in a heading's text is written as a space.
    const text = context === "heading" ? block.text.replace(/[\r\n]/g, " ") : block.text;
    const inline = phrasing(text, inlineMarks(block));
    children.push(
      context === "heading" ? { type: "heading", depth: 1, children: inline } : { type: "paragraph", children: inline },
      { type: "html", value: CUT },
    );
  }
  const parts = toMarkdown({ type: "root", children }, OPTIONS).split(CUT);
  let i = 0;
  for (const [key, { context }] of missing) {
    let part = parts[i++]!.replace(/^\n+/, "").replace(/\n+$/, "");
    if (context === "heading") part = part.replace(/^# ?/, "");
    FRAGMENTS.set(key, part);
  }
}

/** Works out (or finds) the inline Markdown of every block with text, by block. */
function fragmentsOf(blocks: readonly Block[]): Map<Block, string> {
  const inline = new Map<Block, string>();
  const items: { context: InlineContext; block: Block; key: string }[] = [];
  for (const block of blocks) {
    if (block.type === "code" || block.type === "divider") continue;
    const context: InlineContext = block.type === "heading" ? "heading" : "paragraph";
    const key = fragmentKey(context, block);
    // Kept whichever way it was written (decision 0049): looking a block up by its content costs a fifth of
    // testing it for the direct writer, and a read with the read cache off meets the same blocks again.
    const kept = FRAGMENTS.get(key);
    if (kept !== undefined) {
      inline.set(block, kept);
      continue;
    }
    const text = directInline(block.text, inlineMarks(block));
    if (text !== null) {
      if (FRAGMENTS.size >= FRAGMENT_CACHE_SIZE) FRAGMENTS.clear();
      FRAGMENTS.set(key, text);
      inline.set(block, text);
      continue;
    }
    items.push({ context, block, key });
  }
  prepareFragments(items);
  for (const item of items) inline.set(item.block, FRAGMENTS.get(item.key)!);
  return inline;
}

/** The fragments of the window being written (set by blocksToTree / blocksToMarkdown). */
let current: Map<Block, string> = new Map();

/** The block's inline Markdown and, at its end, its id comment, as one raw node (see FRAGMENTS). */
function withId(block: Block, prefix = ""): Paragraph {
  return { type: "paragraph", children: [rawLine(block, prefix)] };
}

function rawLine(block: Block, prefix = ""): Html {
  const fragment = current.get(block) ?? "";
  return { type: "html", value: `${prefix}${fragment}${fragment ? " " : ""}${idComment(block.id)}` };
}

/**
 * In a quote or a callout, the raw line stands where its paragraph would: the same text comes out
 * (the differential test says so) without the library's phrasing pass over it. Only `blocksToMarkdown` uses
 * this; `treeMarkdown`, the reference, keeps the paragraphs.
 */
let flat = false;
const content = (block: Block, prefix = ""): BlockContent => (flat ? rawLine(block, prefix) : withId(block, prefix));

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
      // A list item keeps its paragraph: the task-list handler writes `[ ]` before a paragraph only, and a
      // paragraph, not raw text, joins a nested list without a blank line.
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
      return [{ type: "blockquote", children: [content(block)] }];
    case "callout":
      return [
        {
          type: "blockquote",
          children: [content(block, `${CALLOUT_MARKER}\n`)],
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
  current = fragmentsOf(blocks);
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
 * A run of list items as the library lays out `lists(run)` (tight lists, `-` bullets, `1.` numbers counting
 * up, markers followed by one space, content and nested lists indented by the marker's width, `[ ]`/`[x]`
 * before a todo's text), from the items' inline Markdown. The differential property test holds it equal to
 * the library's output.
 */
function listRun(run: Block[]): string {
  const open: { ordered: boolean; count: number; base: string; inner: string }[] = [];
  const out: string[] = [];
  for (const block of run) {
    const depth = Math.min("indent" in block ? (block.indent ?? 0) : 0, open.length);
    const ordered = block.type === "numbered";
    open.length = Math.min(open.length, depth + 1);
    let list = open[depth];
    if (!list || list.ordered !== ordered) {
      // A new list at the top of the run after another one is a new top-level block: a blank line between.
      if (depth === 0 && out.length > 0) out.push("");
      list = { ordered, count: 0, base: depth === 0 ? "" : open[depth - 1]!.inner, inner: "" };
      open[depth] = list;
      open.length = depth + 1;
    }
    list.count++;
    const marker = ordered ? `${list.count}.` : "-";
    list.inner = list.base + " ".repeat(marker.length + 1);
    const checkbox = block.type === "todo" ? (block.checked ? "[x] " : "[ ] ") : "";
    const lines = rawLine(block).value.split("\n");
    out.push(`${list.base}${marker} ${checkbox}${lines[0]}`);
    for (const line of lines.slice(1)) out.push(line ? `${list.inner}${line}` : "");
  }
  return out.join("\n");
}

/** The library's serialization of the window's whole tree: what `blocksToMarkdown` answers (tests compare them). */
export function treeMarkdown(blocks: readonly Block[]): string {
  if (blocks.length === 0) return "";
  return toMarkdown(blocksToTree(blocks), OPTIONS);
}

/**
 * Blocks as GitHub-flavoured Markdown (decision 0026): each block's id follows it as
 * `<!-- mnote:id=… -->` at the end of its first line, or, for code and dividers, on the line before it.
 *
 * The answer is the library's serialization of the window's tree (`treeMarkdown`), put together faster:
 * a top-level paragraph or heading serializes to its inline Markdown (kept, see FRAGMENTS) and its id
 * comment, and top-level blocks are joined by a blank line, so those are written directly; every other
 * block (lists, quotes, callouts, code, dividers) goes through one pass of the library for the window.
 * A property test holds the two equal.
 */
export function blocksToMarkdown(blocks: readonly Block[]): string {
  if (blocks.length === 0) return "";
  current = fragmentsOf(blocks);
  flat = true;
  const units: (string | null)[] = [];
  const rest: RootContent[] = [];
  for (let i = 0; i < blocks.length;) {
    const block = blocks[i]!;
    if (block.type === "paragraph") {
      units.push((withId(block).children[0] as { value: string }).value);
      i++;
    } else if (block.type === "heading") {
      const value = (withId(block).children[0] as { value: string }).value;
      const head = value.charCodeAt(0);
      units.push(
        `${"#".repeat(block.level)} ${head === 9 || head === 32 ? `&#x${head.toString(16).toUpperCase()};${value.slice(1)}` : value}`,
      );
      i++;
    } else {
      let j = i + 1;
      if (isList(block)) {
        while (j < blocks.length && isList(blocks[j]!)) j++;
        units.push(listRun(blocks.slice(i, j)));
        i = j;
        continue;
      }
      if (block.type === "divider") {
        units.push(`${idComment(block.id)}\n\n---`);
        i++;
        continue;
      }
      if (block.type === "code" && /^[A-Za-z0-9]*$/.test(block.language)) {
        // As the library fences code: a run of backticks one longer than the longest inside, at least three.
        let longest = 0;
        for (const run of block.text.match(/`+/g) ?? []) longest = Math.max(longest, run.length);
        const fence = "`".repeat(Math.max(longest + 1, 3));
        units.push(
          `${idComment(block.id)}\n\n${fence}${block.language}\n${block.text ? `${block.text}\n` : ""}${fence}`,
        );
        i++;
        continue;
      }
      const nodes = flow(block);
      if (rest.length > 0) rest.push({ type: "html", value: CUT });
      rest.push(...nodes);
      units.push(null);
      i = j;
    }
  }
  flat = false;
  if (rest.length > 0) {
    const parts = toMarkdown({ type: "root", children: rest }, OPTIONS).split(`\n\n${CUT}\n\n`);
    let k = 0;
    for (let u = 0; u < units.length; u++) if (units[u] === null) units[u] = parts[k++]!.replace(/\n$/, "");
  }
  return `${units.join("\n\n")}\n`;
}
