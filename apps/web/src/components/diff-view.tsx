"use client";

import type { Change, ToolWarning } from "@mnote/contract";
import { diffWords } from "@mnote/diff";
import { blockLabel } from "./blocks";

/** Word-level inline diff inside one changed text. */
export function WordDiff({ before, after }: { before: string; after: string }) {
  return (
    <span className="word-diff">
      {diffWords(before, after).map((segment, i) =>
        segment.op === "equal" ? (
          <span key={i}>{segment.text}</span>
        ) : segment.op === "insert" ? (
          <ins key={i}>{segment.text}</ins>
        ) : (
          <del key={i}>{segment.text}</del>
        ),
      )}
    </span>
  );
}

function describe(change: Change) {
  switch (change.kind) {
    case "insert":
      return { tag: "Inserted", className: "insert", body: <span>{change.block.text || <em>({blockLabel(change.block)})</em>}</span>, where: `${blockLabel(change.block)} at position ${change.index + 1}` };
    case "delete":
      return { tag: "Deleted", className: "delete", body: <del>{change.block.text || `(${blockLabel(change.block)})`}</del>, where: `${blockLabel(change.block)} from position ${change.index + 1}` };
    case "update":
      return {
        tag: "Changed",
        className: "update",
        body: <WordDiff before={change.before.text} after={change.after.text} />,
        where:
          change.before.type !== change.after.type || blockLabel(change.before) !== blockLabel(change.after)
            ? `${blockLabel(change.before)} → ${blockLabel(change.after)}`
            : `${blockLabel(change.after)} at position ${change.index + 1}`,
      };
    case "move":
      return { tag: "Moved", className: "move", body: <span>{change.block.text}</span>, where: `position ${change.from + 1} → ${change.to + 1}` };
    case "set_title":
      return { tag: "Title", className: "update", body: <WordDiff before={change.before} after={change.after} />, where: "" };
    case "set_option":
      return { tag: "Option", className: "update", body: <span><code>{change.key}</code>: {String(change.before)} → <strong>{String(change.after)}</strong></span>, where: "" };
    case "set_summary":
      return {
        tag: change.before === null ? "New summary" : "Summary",
        className: change.before === null ? "insert" : "update",
        body: change.before === null ? <span>{change.after}</span> : <WordDiff before={change.before} after={change.after} />,
        where: "",
      };
    case "add_ai_note":
      return { tag: "New AI note", className: "insert", body: <span>{change.content}</span>, where: "" };
  }
}

/**
 * The changes of one proposal. With `selection`, each block change gets a checkbox
 * so a person can keep only some of them.
 */
export function ChangeList({
  changes,
  warnings,
  selection,
  onToggle,
  idPrefix,
}: {
  changes: Change[];
  warnings: ToolWarning[];
  selection?: Set<number>;
  onToggle?: (index: number) => void;
  idPrefix: string;
}) {
  const warned = new Set(warnings.flatMap((w) => (w.field ? [w.field.replace(/^options\./, "")] : [])));
  if (changes.length === 0) return <p className="muted">No visible change: the page already looks like this.</p>;
  return (
    <ul className="changes">
      {changes.map((change, index) => {
        const { tag, className, body, where } = describe(change);
        const flagged = change.kind === "set_option" && warned.has(change.key);
        const id = `${idPrefix}-change-${index}`;
        return (
          <li key={index} className={`change ${className}${flagged ? " flagged" : ""}`} data-kind={change.kind}>
            {selection && onToggle && (
              <input
                type="checkbox"
                id={id}
                checked={selection.has(index)}
                onChange={() => onToggle(index)}
                aria-label={`Keep change ${index + 1}: ${tag}`}
              />
            )}
            <span className="tag">{tag}</span>
            {where && <span className="where">{where}</span>}
            <span className="body">{body}</span>
            {flagged && <span className="badge warn">not wired yet</span>}
          </li>
        );
      })}
    </ul>
  );
}
