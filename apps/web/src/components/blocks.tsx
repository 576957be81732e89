import type { Block } from "@mnote/contract";

/** One block as the editor would show it (read-only here). */
export function BlockView({ block }: { block: Block }) {
  switch (block.type) {
    case "heading": {
      const Tag = (`h${block.level + 1}` as "h2" | "h3" | "h4");
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

/** A block squeezed into one line, for diffs. */
export function blockLabel(block: Block) {
  const kind = block.type === "heading" ? `heading ${block.level}` : block.type;
  return kind;
}
