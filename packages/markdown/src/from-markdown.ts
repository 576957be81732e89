import { type BlockInput, hrefProblem, type Mark, type MarkType } from "@mnote/contract";
import type { List, Nodes, Paragraph, PhrasingContent, RootContent } from "mdast";
import { fromMarkdown } from "mdast-util-from-markdown";
import { gfmFromMarkdown } from "mdast-util-gfm";
import { gfm } from "micromark-extension-gfm";
import { CALLOUT_MARKER } from "./phrasing";

/** Markdown that the page cannot hold: says what and on which line (the tools answer it as invalid input). */
export class MarkdownRefused extends Error {}

const ID_COMMENT = /^<!--\s*mnote:id=([A-Za-z0-9_-]{1,64})\s*-->$/;

/** What the subset cannot hold, named for the model (decision 0026: refused, never dropped). */
const UNSUPPORTED: Record<string, string> = {
  table: "a table (write its rows as a list, or put it in a code block)",
  image: "an image",
  imageReference: "an image",
  html: "raw HTML",
  footnoteDefinition: "a footnote",
  footnoteReference: "a footnote",
  definition: "a link reference definition (write links as [text](https://…))",
  linkReference: "a reference-style link (write links as [text](https://…))",
  yaml: "front matter",
  math: "math",
  inlineMath: "math",
};

const line = (node: Nodes) => node.position?.start.line ?? 1;

function refuse(node: Nodes, what: string): never {
  throw new MarkdownRefused(`line ${line(node)}: ${what} is not supported in mnote pages`);
}

const idOf = (node: Nodes): string | null =>
  node.type === "html" ? (ID_COMMENT.exec(node.value.trim())?.[1] ?? null) : null;

interface Inline {
  text: string;
  marks: Mark[];
  id: string | null;
}

const MARK_OF: Partial<Record<string, MarkType>> = {
  strong: "bold",
  emphasis: "italic",
  delete: "strike",
  link: "link",
};

/** Spans of one mark that touch or overlap become one (the stored form has no two such spans). */
function merged(marks: Mark[]): Mark[] {
  const out: Mark[] = [];
  const sorted = [...marks].sort((a, b) => a.type.localeCompare(b.type) || a.start - b.start);
  for (const mark of sorted) {
    const last = out.at(-1);
    if (last && last.type === mark.type && last.href === mark.href && mark.start <= last.end)
      last.end = Math.max(last.end, mark.end);
    else if (last && last.type === mark.type && mark.start < last.end)
      // Links with different targets overlapping cannot be stored: keep the first one's span.
      mark.start = last.end;
    else out.push({ ...mark });
  }
  return out.filter((mark) => mark.end > mark.start);
}

/** Inline content as plain text and spans; a trailing id comment names the block. */
export function inline(children: PhrasingContent[]): Inline {
  let text = "";
  const marks: Mark[] = [];
  let id: string | null = null;
  const last = children.at(-1);
  let content = children;
  if (last && idOf(last)) {
    id = idOf(last);
    content = children.slice(0, -1);
  }
  const walk = (nodes: PhrasingContent[]) => {
    for (const node of nodes) {
      switch (node.type) {
        case "text":
          text += node.value;
          break;
        case "break":
          text += "\n";
          break;
        case "inlineCode": {
          const start = text.length;
          text += node.value;
          if (node.value) marks.push({ type: "code", start, end: text.length });
          break;
        }
        case "strong":
        case "emphasis":
        case "delete":
        case "link": {
          const start = text.length;
          if (node.type === "link") {
            const problem = hrefProblem(node.url);
            if (problem) refuse(node, `a link to ${JSON.stringify(node.url.slice(0, 80))} (${problem})`);
          }
          walk(node.children);
          if (text.length > start)
            marks.push({
              type: MARK_OF[node.type]!,
              start,
              end: text.length,
              ...(node.type === "link" ? { href: node.url } : {}),
            });
          break;
        }
        default:
          refuse(node, UNSUPPORTED[node.type] ?? `${node.type}`);
      }
    }
  };
  walk(content);
  // The space written between the text and its id comment is not part of the text.
  if (id !== null && text.endsWith(" ")) text = text.slice(0, -1);
  return { text, marks: merged(marks), id };
}

type Out = BlockInput & { id?: string; marks?: Mark[]; indent?: number };

function withFormatting(base: Record<string, unknown>, parsed: Inline): Out {
  return {
    ...(parsed.id ? { id: parsed.id } : {}),
    ...base,
    text: parsed.text,
    ...(parsed.marks.length > 0 ? { marks: parsed.marks } : {}),
  } as Out;
}

/** The paragraphs of a container as one block's inline content (more than one: joined by a line break). */
function paragraphs(children: RootContent[], where: Nodes): Inline {
  const parts: Inline[] = [];
  let id: string | null = null;
  for (const child of children) {
    if (child.type === "paragraph") parts.push(inline(child.children));
    else if (idOf(child) && id === null && parts.length === 0) id = idOf(child);
    else refuse(child, UNSUPPORTED[child.type] ?? `${describe(child)} inside ${describe(where)}`);
  }
  const out: Inline = { text: "", marks: [], id };
  for (const part of parts) {
    if (out.text || out.marks.length) out.text += "\n";
    const offset = out.text.length;
    out.text += part.text;
    out.marks.push(...part.marks.map((mark) => ({ ...mark, start: mark.start + offset, end: mark.end + offset })));
    if (part.id) out.id = part.id;
  }
  return out;
}

function describe(node: Nodes): string {
  switch (node.type) {
    case "list":
      return "a list";
    case "listItem":
      return "a list item";
    case "blockquote":
      return "a quote";
    case "heading":
      return "a heading";
    case "code":
      return "a code block";
    case "thematicBreak":
      return "a divider";
    default:
      return UNSUPPORTED[node.type] ?? `a ${node.type}`;
  }
}

function listBlocks(list: List, depth: number, out: Out[]) {
  if (depth > 3) refuse(list, "a list nested more than 4 levels deep");
  for (const item of list.children) {
    const nested = item.children.filter((child): child is List => child.type === "list");
    const parsed = paragraphs(
      item.children.filter((child) => child.type !== "list"),
      item,
    );
    const base: Record<string, unknown> =
      item.checked !== null && item.checked !== undefined
        ? { type: "todo", checked: item.checked }
        : { type: list.ordered ? "numbered" : "bulleted" };
    const block = withFormatting(base, parsed);
    if (depth > 0) block.indent = depth;
    out.push(block);
    for (const child of nested) listBlocks(child, depth + 1, out);
  }
}

/**
 * GitHub-flavoured Markdown as blocks (decision 0026), parsed by micromark. A block's id comes from
 * its `<!-- mnote:id=… -->` comment (at the end of its first line, or on the line before a code block
 * or divider); blocks without one get ids from the server. Tables, images, raw HTML, footnotes and
 * reference links are refused with the line they are on (`MarkdownRefused`), never dropped.
 */
export function markdownToBlocks(markdown: string): Out[] {
  const tree = fromMarkdown(markdown, { extensions: [gfm()], mdastExtensions: [gfmFromMarkdown()] });
  const out: Out[] = [];
  let pending: string | null = null;
  const flushPending = () => {
    if (pending !== null) out.push({ id: pending, type: "paragraph", text: "" });
    pending = null;
  };
  for (const node of tree.children) {
    const id = idOf(node);
    if (id !== null) {
      flushPending();
      pending = id;
      continue;
    }
    if (node.type === "code" || node.type === "thematicBreak") {
      const block: Out =
        node.type === "code"
          ? { type: "code", language: node.lang ?? "", text: node.value }
          : { type: "divider", text: "" };
      if (pending !== null) block.id = pending;
      pending = null;
      out.push(block);
      continue;
    }
    flushPending();
    switch (node.type) {
      case "paragraph":
        out.push(withFormatting({ type: "paragraph" }, inline(node.children)));
        break;
      case "heading":
        // #### and deeper are kept as level 3: mnote has three heading levels.
        out.push(withFormatting({ type: "heading", level: Math.min(node.depth, 3) }, inline(node.children)));
        break;
      case "blockquote": {
        const first = node.children[0] as Paragraph | undefined;
        const head = first?.type === "paragraph" ? first.children[0] : undefined;
        const isCallout =
          head !== undefined &&
          ((head.type === "text" && head.value.startsWith(CALLOUT_MARKER)) ||
            (head.type === "html" && head.value === CALLOUT_MARKER));
        if (isCallout && first) {
          const rest = first.children.slice(1);
          if (head.type === "text") {
            const value = head.value.slice(CALLOUT_MARKER.length).replace(/^\n/, "");
            if (value) rest.unshift({ ...head, value });
          } else if (rest[0]?.type === "text") {
            rest[0] = { ...rest[0], value: rest[0].value.replace(/^\n/, "") };
          }
          const children = [{ ...first, children: rest }, ...node.children.slice(1)] as RootContent[];
          out.push(withFormatting({ type: "callout" }, paragraphs(children, node)));
        } else out.push(withFormatting({ type: "quote" }, paragraphs(node.children, node)));
        break;
      }
      case "list":
        listBlocks(node, 0, out);
        break;
      default:
        refuse(node, UNSUPPORTED[node.type] ?? describe(node));
    }
  }
  flushPending();
  return out;
}
