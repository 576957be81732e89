import { type Block, hrefProblem, type Mark, type MarkType } from "@mnote/contract";
import { memo, type ReactNode } from "react";

/**
 * One block as the editor would show it (read-only here), marked when a change under review points at it.
 * Memoised: on a page of thousands of blocks, moving the highlight re-renders two blocks, not all of them.
 */
export const BlockView = memo(function BlockView({
  block,
  highlighted = false,
  text,
}: {
  block: Block;
  highlighted?: boolean;
  /** Shown in place of the block's text: a word diff when the block is a suggested change. */
  text?: ReactNode;
}) {
  return (
    <div className={`block-slot${highlighted ? " highlighted" : ""}`} data-block-id={text ? undefined : block.id}>
      <BlockBody block={block} content={text ?? <FormattedText block={block} />} />
    </div>
  );
});

/** Outermost first: a run of text under one mark becomes one element, holding the marks nested in it. */
const WRAP_ORDER: readonly MarkType[] = ["link", "bold", "italic", "strike", "code"];

interface Piece {
  from: number;
  text: string;
  over: Map<MarkType, Mark>;
}

function wrap(type: MarkType, mark: Mark, key: number, children: ReactNode): ReactNode {
  switch (type) {
    case "bold":
      return <strong key={key}>{children}</strong>;
    case "italic":
      return <em key={key}>{children}</em>;
    case "strike":
      return <s key={key}>{children}</s>;
    case "code":
      return <code key={key}>{children}</code>;
    default:
      return mark.href && !hrefProblem(mark.href) ? (
        <a key={key} href={mark.href} rel="noopener noreferrer" target="_blank">
          {children}
        </a>
      ) : (
        <span key={key}>{children}</span>
      );
  }
}

function nested(pieces: Piece[], level: number): ReactNode[] {
  if (level === WRAP_ORDER.length) return pieces.map((piece) => <span key={piece.from}>{piece.text}</span>);
  const type = WRAP_ORDER[level]!;
  const keyOf = (piece: Piece) => {
    const mark = piece.over.get(type);
    return mark ? `${mark.start}:${mark.href ?? ""}` : null;
  };
  const out: ReactNode[] = [];
  for (let i = 0; i < pieces.length;) {
    const key = keyOf(pieces[i]!);
    let j = i + 1;
    while (j < pieces.length && keyOf(pieces[j]!) === key) j++;
    const inner = nested(pieces.slice(i, j), level + 1);
    out.push(key === null ? inner : wrap(type, pieces[i]!.over.get(type)!, pieces[i]!.from, inner));
    i = j;
  }
  return out;
}

/**
 * A block's text with its marks (decision 0026) as elements: <a>, <strong>, <em>, <s>, <code>. The text is
 * always a React text child (escaped), never HTML; a link is an <a> only when its target is one the
 * contract allows (http, https, mailto), and it opens nothing with the page's window (noopener noreferrer).
 */
export function FormattedText({ block }: { block: Block }) {
  const marks = ("marks" in block ? block.marks : undefined) ?? [];
  if (marks.length === 0) return <>{block.text}</>;
  const cuts = [...new Set([0, block.text.length, ...marks.flatMap((m) => [m.start, m.end])])]
    .filter((cut) => cut >= 0 && cut <= block.text.length)
    .sort((a, b) => a - b);
  const pieces: Piece[] = [];
  for (let i = 0; i + 1 < cuts.length; i++) {
    const from = cuts[i]!;
    const to = cuts[i + 1]!;
    const over = new Map<MarkType, Mark>();
    for (const mark of marks) if (mark.start <= from && mark.end >= to) over.set(mark.type, mark);
    pieces.push({ from, text: block.text.slice(from, to), over });
  }
  return <>{nested(pieces, 0)}</>;
}

/** A list item's nesting level (0 at the top), shown as indentation. */
function indentOf(block: Block): number {
  return "indent" in block ? (block.indent ?? 0) : 0;
}

/** The block's shape; `content` is its text, or what stands for it (a word diff). */
export function BlockBody({ block, content }: { block: Block; content: ReactNode }) {
  switch (block.type) {
    case "heading": {
      const Tag = `h${block.level + 1}` as "h2" | "h3" | "h4";
      return <Tag className={`block heading level-${block.level}`}>{content}</Tag>;
    }
    case "bulleted":
      return (
        <p className={`block bulleted indent-${indentOf(block)}`} data-indent={indentOf(block)}>
          {["•", "◦", "▪", "‣"][indentOf(block)]} {content}
        </p>
      );
    case "numbered":
      return (
        <p className={`block numbered indent-${indentOf(block)}`} data-indent={indentOf(block)}>
          {content}
        </p>
      );
    case "todo":
      return (
        <p className={`block todo indent-${indentOf(block)}`} data-indent={indentOf(block)}>
          <span aria-label={block.checked ? "done" : "not done"} role="img">
            {block.checked ? "☑" : "☐"}
          </span>{" "}
          {content}
        </p>
      );
    case "quote":
      return <blockquote className="block quote">{content}</blockquote>;
    case "code":
      return (
        <pre className="block code" data-language={block.language || undefined}>
          <code>{content}</code>
        </pre>
      );
    case "divider":
      return <hr className="block divider" />;
    case "callout":
      return <p className="block callout">💡 {content}</p>;
    default:
      return <p className="block paragraph">{content}</p>;
  }
}

/** A block's kind in a few words, for diffs: its type and the attribute that shapes it. */
export function blockLabel(block: Block) {
  switch (block.type) {
    case "heading":
      return `heading ${block.level}`;
    case "todo":
      return block.checked ? "todo ☑ done" : "todo ☐ not done";
    case "code":
      return block.language ? `code (${block.language})` : "code (no language)";
    default:
      return block.type;
  }
}
