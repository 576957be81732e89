import { randomBytes } from "node:crypto";
import type { Block, Mark, MarkType } from "@mnote/contract";
import type { BlockContent, Html, List, ListItem, Paragraph, Root, RootContent } from "mdast";
import { toMarkdown } from "mdast-util-to-markdown";
import { checkedInline } from "./inline";
import { CALLOUT_MARKER, idComment, OPTIONS, phrasing, sameMarks, writableMarks } from "./phrasing";

export { CALLOUT_MARKER, idComment, phrasing };

/**
 * Serialized inline content (a block's text and marks as Markdown), by context and content. Serializing
 * is mdast-util-to-markdown's `safe` escaping over dozens of patterns per text node: about 0.1 ms a
 * block, ten times what the whole blocks-form read costs. A block's inline Markdown depends only on
 * its text, marks and whether it is a heading, so it is worked out once (for all new ones of a window
 * in one pass) and kept, and the window's tree holds it as raw nodes: the one serialization of the
 * tree then lays out blocks, lists, quotes and fences without escaping again.
 *
 * Kept by block id and compared in full on text, context and marks, so a changed block is worked out again: with the
 * read cache off every read meets new block objects and new strings, and a lookup hashes its key afresh each time.
 * A key of text and marks (concatenated, flattened, then hashed) cost more than the rest of the kept path; an id is
 * a few characters to hash, and comparing the kept text with the block's is a memory compare. The marks compared
 * are the stored ones, before `writableMarks` drops refused links: the Markdown is a pure function of them, so the
 * link rule runs only when a fragment is worked out. Block ids are unique within a page, not across pages, so an id
 * keeps a few versions (pages that share ids, read in turn, each find theirs; an edited block's old version ages out).
 */
interface KeptFragment {
  text: string;
  heading: boolean;
  /** A copy of the block's marks (the block's own array may change after it was read). */
  marks: readonly Mark[];
  markdown: string;
  /**
   * The block's line (`lineOf`: the Markdown and the block's id comment), kept whole: the id is the key, so a read
   * joins kept strings instead of building each line again.
   */
  line: string;
  /** JSON escaping's extra characters in the line: see `blocksToMarkdownMeasured`. */
  lineJsonExtra: number;
}
const FRAGMENTS = new Map<string, KeptFragment[]>();
const FRAGMENT_CACHE_SIZE = 50_000;
const VERSIONS_PER_ID = 4;
let keptFragments = 0;
/** Cuts one pass's output into its fragments; random, so no page text can contain it unescaped. */
const CUT = `<!-- mnote:cut:${randomBytes(8).toString("hex")} -->`;

const storedMarks = (block: Block): readonly Mark[] => ("marks" in block ? (block.marks ?? []) : []);
const inlineMarks = (block: Block): readonly Mark[] => writableMarks(storedMarks(block));

/** The kept inline Markdown of this block as it is now, or undefined when there is none or the block changed. */
function keptFragment(block: Block, heading: boolean, marks: readonly Mark[]): KeptFragment | undefined {
  const versions = FRAGMENTS.get(block.id);
  if (versions === undefined) return undefined;
  for (const kept of versions)
    if (kept.text === block.text && kept.heading === heading && sameMarks(kept.marks, marks)) return kept;
  return undefined;
}

function keepFragment(block: Block, heading: boolean, marks: readonly Mark[], markdown: string): KeptFragment {
  // Bounded: when full, start again (the next reads work their windows out anew).
  if (keptFragments >= FRAGMENT_CACHE_SIZE) forgetInlineMarkdown();
  const copied = marks.map((mark): Mark => ({ type: mark.type, start: mark.start, end: mark.end, href: mark.href }));
  const line = lineOf(markdown, block.id);
  const kept = {
    text: block.text,
    heading,
    marks: copied,
    markdown,
    line,
    lineJsonExtra: jsonExtraOf(line),
  };
  const versions = FRAGMENTS.get(block.id);
  if (versions === undefined) FRAGMENTS.set(block.id, [kept]);
  else {
    if (versions.length >= VERSIONS_PER_ID) {
      versions.shift();
      keptFragments--;
    }
    versions.push(kept);
  }
  keptFragments++;
  return kept;
}

/** What JSON.stringify escapes in a string: `"`, a backslash, control characters, and lone surrogates (pairs stay). */
// eslint-disable-next-line no-control-regex
const JSON_ESCAPED = /["\\\u0000-\u001f\ud800-\udfff]/;
/**
 * How many characters longer a string is as JSON than as itself, quotes aside. Additive over pieces joined where
 * no surrogate pair is cut (every join here is at an ASCII character), so a window's total is the sum of its pieces'.
 */
const jsonExtraOf = (value: string) => (JSON_ESCAPED.test(value) ? JSON.stringify(value).length - value.length - 2 : 0);

/** A window's inline Markdown by position in its blocks, with each block's line (`lineOf`) and its JSON extra. */
interface WindowFragments {
  fragments: string[];
  lines: string[];
  lineJsonExtras: number[];
}

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
  keptFragments = 0;
}

interface MissingFragment {
  heading: boolean;
  block: Block;
  /** Where the window's fragments want it. */
  index: number;
}

/** The inline Markdown of blocks that have not been worked out yet, in one pass of the library, kept. */
function prepareFragments(items: readonly MissingFragment[], { fragments, lines, lineJsonExtras }: WindowFragments) {
  // A block met twice in the window is serialized once; the key is built only here, for what was not kept.
  const distinct = new Map<string, MissingFragment>();
  const sameAs: MissingFragment[] = [];
  for (const item of items) {
    let key = `${item.heading ? "h" : "p"}${item.block.text}\u0000`;
    for (const mark of storedMarks(item.block)) key += `${mark.type} ${mark.start} ${mark.end} ${mark.href}\u0000`;
    const first = distinct.get(key);
    if (first === undefined) distinct.set(key, item);
    sameAs.push(first ?? item);
  }
  const children: RootContent[] = [];
  // An ATX heading is one line: a line break in a heading's text is written as a space.
  const texts = [...distinct.values()].map(({ heading, block }) =>
    heading ? block.text.replace(/[\r\n]/g, " ") : block.text,
  );
  let t = 0;
  for (const { heading, block } of distinct.values()) {
    const text = texts[t++]!;
    const inline = phrasing(text, inlineMarks(block));
    children.push(heading ? { type: "heading", depth: 1, children: inline } : { type: "paragraph", children: inline }, {
      type: "html",
      value: CUT,
    });
  }
  const parts = toMarkdown({ type: "root", children }, OPTIONS).split(CUT);
  let i = 0;
  for (const { heading, block, index } of distinct.values()) {
    const marks = storedMarks(block);
    let part = parts[i]!.replace(/^\n+/, "").replace(/\n+$/, "");
    if (heading) part = part.replace(/^# ?/, "");
    part = checkedInline(part, texts[i++]!, marks, heading);
    const kept = keepFragment(block, heading, marks, part);
    fragments[index] = part;
    lines[index] = kept.line;
    lineJsonExtras[index] = kept.lineJsonExtra;
  }
  for (let k = 0; k < items.length; k++) {
    const item = items[k]!;
    if (item === sameAs[k]) continue;
    // Kept under each id it stands under (the distinct pass kept the first).
    const fragment = fragments[sameAs[k]!.index]!;
    const kept = keepFragment(item.block, item.heading, storedMarks(item.block), fragment);
    fragments[item.index] = fragment;
    lines[item.index] = kept.line;
    lineJsonExtras[item.index] = kept.lineJsonExtra;
  }
}

/**
 * Works out (or finds) the inline Markdown of every block, by position in `blocks` (code and dividers, which have
 * none, and empty text get ""). An array by position, not a map by block: every block of a read is a new object.
 */
function fragmentsOf(blocks: readonly Block[]): WindowFragments {
  const fragments: string[] = new Array<string>(blocks.length);
  const lines: string[] = new Array<string>(blocks.length);
  const lineJsonExtras: number[] = new Array<number>(blocks.length);
  const missing: MissingFragment[] = [];
  for (let index = 0; index < blocks.length; index++) {
    const block = blocks[index]!;
    if (block.type === "code" || block.type === "divider" || !block.text) {
      fragments[index] = "";
      const line = idComment(block.id);
      lines[index] = line;
      lineJsonExtras[index] = jsonExtraOf(line);
      continue;
    }
    const heading = block.type === "heading";
    const marks = storedMarks(block);
    // Kept whichever way it was written (decision 0049): finding a block's kept Markdown costs less than testing it
    // for the direct writer, and a read with the read cache off meets the same blocks again.
    const kept = keptFragment(block, heading, marks);
    if (kept !== undefined) {
      fragments[index] = kept.markdown;
      lines[index] = kept.line;
      lineJsonExtras[index] = kept.lineJsonExtra;
      continue;
    }
    const direct = directInline(block.text, writableMarks(marks));
    if (direct !== null) {
      const fresh = keepFragment(block, heading, marks, direct);
      fragments[index] = direct;
      lines[index] = fresh.line;
      lineJsonExtras[index] = fresh.lineJsonExtra;
      continue;
    }
    missing.push({ heading, block, index });
  }
  const window = { fragments, lines, lineJsonExtras };
  if (missing.length > 0) prepareFragments(missing, window);
  return window;
}

/**
 * The fragments of the blocks the library lays out (set by blocksToTree for the window; by blocksToMarkdown for the
 * few blocks it leaves to the library).
 */
let current: Map<Block, string> = new Map();

/** A block's line: its inline Markdown and, at its end, its id comment. */
const lineOf = (fragment: string, id: string) => (fragment ? `${fragment} ${idComment(id)}` : idComment(id));

/** The block's inline Markdown and, at its end, its id comment, as one raw node (see FRAGMENTS). */
function withId(block: Block, prefix = ""): Paragraph {
  return { type: "paragraph", children: [rawLine(block, prefix)] };
}

function rawLine(block: Block, prefix = ""): Html {
  return { type: "html", value: prefix + lineOf(current.get(block) ?? "", block.id) };
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
  const { fragments } = fragmentsOf(blocks);
  current = new Map(blocks.map((block, i) => [block, fragments[i]!]));
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
function listRun(
  blocks: readonly Block[],
  from: number,
  to: number,
  window: WindowFragments,
): { text: string; jsonExtra: number } {
  // `markerWidth` is the width of the list's latest marker: what its items' content and nested lists are indented by.
  const open: { ordered: boolean; count: number; base: string; markerWidth: number }[] = [];
  // How many of `open` are open: counted rather than set as the array's length, whose setter is a slow builtin.
  let depths = 0;
  const out: string[] = [];
  // The items' lines are all the run's escaped characters, and the line breaks it writes between them.
  let jsonExtra = 0;
  for (let i = from; i < to; i++) {
    const block = blocks[i]!;
    const depth = Math.min("indent" in block ? (block.indent ?? 0) : 0, depths);
    const ordered = block.type === "numbered";
    depths = Math.min(depths, depth + 1);
    let list = depth < depths ? open[depth] : undefined;
    if (!list || list.ordered !== ordered) {
      // A new list at the top of the run after another one is a new top-level block: a blank line between.
      if (depth === 0 && out.length > 0) out.push("");
      list = { ordered, count: 0, base: depth === 0 ? "" : innerIndent(open[depth - 1]!), markerWidth: 0 };
      open[depth] = list;
      depths = depth + 1;
    }
    list.count++;
    const marker = ordered ? `${list.count}.` : "-";
    list.markerWidth = marker.length;
    const checkbox = block.type === "todo" ? (block.checked ? "[x] " : "[ ] ") : "";
    const line = window.lines[i]!;
    jsonExtra += window.lineJsonExtras[i]!;
    const head = `${list.base}${marker} ${checkbox}`;
    // Most items are one line: no split, and no continuation indent to work out.
    if (!line.includes("\n")) {
      out.push(head + line);
      continue;
    }
    const lines = line.split("\n");
    // Its own line breaks, counted in its line's extra, are written again below by the join.
    jsonExtra -= lines.length - 1;
    const inner = innerIndent(list);
    out.push(head + lines[0]!);
    for (let k = 1; k < lines.length; k++) out.push(lines[k] ? inner + lines[k]! : "");
  }
  return { text: out.join("\n"), jsonExtra: jsonExtra + out.length - 1 };
}

/** Where an item's content and nested lists start: under its text, past the marker and one space. */
const innerIndent = (list: { base: string; markerWidth: number }) => list.base + " ".repeat(list.markerWidth + 1);

/** The library's serialization of the window's whole tree: what `blocksToMarkdown` answers (tests compare them). */
export function treeMarkdown(blocks: readonly Block[]): string {
  if (blocks.length === 0) return "";
  return toMarkdown(blocksToTree(blocks), OPTIONS);
}

/** The start of an ATX heading's line, by level. */
const ATX_HEADING: readonly string[] = [" ", "# ", "## ", "### ", "#### ", "##### ", "###### "];

/** Markdown and how long it is as a JSON string (`JSON.stringify(text).length`): what a read's budget counts. */
export interface MeasuredMarkdown {
  text: string;
  jsonLength: number;
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
  return blocksToMarkdownMeasured(blocks).text;
}

/**
 * `blocksToMarkdown` with its length as JSON, added up from its pieces as they are written: escaping a window's
 * whole Markdown again to measure it (JSON.stringify, character by character) cost about as much as writing it, and
 * a kept line's extra is worked out once, with its fragment. A property test holds `jsonLength` to JSON.stringify's.
 */
export function blocksToMarkdownMeasured(blocks: readonly Block[]): MeasuredMarkdown {
  if (blocks.length === 0) return { text: "", jsonLength: 2 };
  const window = fragmentsOf(blocks);
  const { fragments, lines, lineJsonExtras } = window;
  current = new Map();
  flat = true;
  const units: (string | null)[] = [];
  // Escaping's extra characters in the units written here; the library's units are measured when they come back.
  let jsonExtra = 0;
  const rest: RootContent[] = [];
  for (let i = 0; i < blocks.length;) {
    const block = blocks[i]!;
    if (block.type === "paragraph") {
      units.push(lines[i]!);
      jsonExtra += lineJsonExtras[i]!;
      i++;
    } else if (block.type === "heading") {
      const value = lines[i]!;
      const head = value.charCodeAt(0);
      if (head === 9 || head === 32) {
        const unit = `${"#".repeat(block.level)} &#x${head.toString(16).toUpperCase()};${value.slice(1)}`;
        units.push(unit);
        jsonExtra += jsonExtraOf(unit);
      } else {
        units.push((ATX_HEADING[block.level] ?? `${"#".repeat(block.level)} `) + value);
        jsonExtra += lineJsonExtras[i]!;
      }
      i++;
    } else {
      let j = i + 1;
      if (isList(block)) {
        while (j < blocks.length && isList(blocks[j]!)) j++;
        const run = listRun(blocks, i, j, window);
        units.push(run.text);
        jsonExtra += run.jsonExtra;
        i = j;
        continue;
      }
      if (block.type === "divider") {
        units.push(`${lines[i]!}\n\n---`);
        jsonExtra += lineJsonExtras[i]! + 2;
        i++;
        continue;
      }
      if (block.type === "code" && /^[A-Za-z0-9]*$/.test(block.language)) {
        // As the library fences code: a run of backticks one longer than the longest inside, at least three.
        let longest = 0;
        for (const run of block.text.match(/`+/g) ?? []) longest = Math.max(longest, run.length);
        const fence = "`".repeat(Math.max(longest + 1, 3));
        units.push(`${lines[i]!}\n\n${fence}${block.language}\n${block.text ? `${block.text}\n` : ""}${fence}`);
        jsonExtra += lineJsonExtras[i]! + 3 + (block.text ? jsonExtraOf(block.text) + 1 : 0);
        i++;
        continue;
      }
      current.set(block, fragments[i]!);
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
    for (let u = 0; u < units.length; u++)
      if (units[u] === null) {
        const part = parts[k++]!.replace(/\n$/, "");
        units[u] = part;
        jsonExtra += jsonExtraOf(part);
      }
  }
  const text = `${units.join("\n\n")}\n`;
  // The blank lines between units and the final line break: one extra character for each line break.
  return { text, jsonLength: text.length + 2 + jsonExtra + 2 * (units.length - 1) + 1 };
}
