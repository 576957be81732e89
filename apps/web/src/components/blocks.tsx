import type { Block } from "@mnote/contract";
import { memo } from "react";

/**
 * One block as the editor would show it (read-only here), marked when a change under review points at it.
 * Memoised: on a page of thousands of blocks, moving the highlight re-renders two blocks, not all of them.
 */
export const BlockView = memo(function BlockView({
  block,
  highlighted = false,
}: {
  block: Block;
  highlighted?: boolean;
}) {
  return (
    <div className={`block-slot${highlighted ? " highlighted" : ""}`} data-block-id={block.id}>
      <BlockBody block={block} />
    </div>
  );
});

function BlockBody({ block }: { block: Block }) {
  switch (block.type) {
    case "heading": {
      const Tag = `h${block.level + 1}` as "h2" | "h3" | "h4";
      return <Tag className={`block heading level-${block.level}`}>{block.text}</Tag>;
    }
    case "bulleted":
      return <p className="block bulleted">• {block.text}</p>;
    case "numbered":
      return <p className="block numbered">{block.text}</p>;
    case "todo":
      return (
        <p className="block todo">
          <span aria-label={block.checked ? "done" : "not done"} role="img">
            {block.checked ? "☑" : "☐"}
          </span>{" "}
          {block.text}
        </p>
      );
    case "quote":
      return <blockquote className="block quote">{block.text}</blockquote>;
    case "code":
      return (
        <pre className="block code" data-language={block.language || undefined}>
          <code>{block.text}</code>
        </pre>
      );
    case "divider":
      return <hr className="block divider" />;
    case "callout":
      return <p className="block callout">💡 {block.text}</p>;
    default:
      return <p className="block paragraph">{block.text}</p>;
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
