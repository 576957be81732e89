import type { Block } from "@mnote/contract";
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
      <BlockBody block={block} content={text ?? block.text} />
    </div>
  );
});

/** The block's shape; `content` is its text, or what stands for it (a word diff). */
function BlockBody({ block, content }: { block: Block; content: ReactNode }) {
  switch (block.type) {
    case "heading": {
      const Tag = `h${block.level + 1}` as "h2" | "h3" | "h4";
      return <Tag className={`block heading level-${block.level}`}>{content}</Tag>;
    }
    case "bulleted":
      return <p className="block bulleted">• {content}</p>;
    case "numbered":
      return <p className="block numbered">{content}</p>;
    case "todo":
      return (
        <p className="block todo">
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
