"use client";

import { type Block, BLOCK_TYPES, type BlockType, LIST_TYPES, MARKED_TYPES } from "@mnote/contract";
import { useEffect, useId, useRef, useState } from "react";

/**
 * Edit a proposed block before accepting it (issue 22): its text, type and the type's attributes. The
 * person's version goes to the server as a block (`panel.proposals.applyEdited`), which checks it against the
 * contract's limits and names the field it refuses; nothing is checked or capped here.
 */
export function BlockEditor({
  block,
  onSave,
  onCancel,
  label,
}: {
  block: Block;
  onSave: (block: Block) => void;
  onCancel: () => void;
  /** What is being edited, for the form's accessible name ("Edit inserted paragraph"). */
  label: string;
}) {
  const id = useId();
  const [type, setType] = useState<BlockType>(block.type);
  const [text, setText] = useState(block.text);
  const [level, setLevel] = useState(block.type === "heading" ? block.level : 1);
  const [checked, setChecked] = useState(block.type === "todo" ? block.checked : false);
  const [language, setLanguage] = useState(block.type === "code" ? block.language : "");
  const textRef = useRef<HTMLTextAreaElement>(null);
  useEffect(() => textRef.current?.focus(), []);

  const edited = (): Block => {
    // Formatting (decision 0026): the editor changes plain text; the marks stay while the text does (the
    // page.edit replace rule), and a list item keeps its indent while it stays a list item.
    const marks = "marks" in block && block.marks && text === block.text && MARKED_TYPES.has(type) ? block.marks : [];
    const indent = "indent" in block && block.indent && LIST_TYPES.has(type) ? block.indent : 0;
    const base = { id: block.id, text, ...(marks.length ? { marks } : {}) };
    const nested = indent ? { indent } : {};
    switch (type) {
      case "heading":
        return { ...base, type, level };
      case "todo":
        return { ...base, ...nested, type, checked };
      case "code":
        return { id: block.id, text, type, language };
      case "divider":
        return { id: block.id, text, type };
      case "bulleted":
      case "numbered":
        return { ...base, ...nested, type };
      default:
        return { ...base, type };
    }
  };
  return (
    <form
      className="block-editor"
      aria-label={label}
      onSubmit={(event) => {
        event.preventDefault();
        onSave(edited());
      }}
      onKeyDown={(event) => {
        if (event.key === "Escape") {
          event.preventDefault();
          event.stopPropagation();
          onCancel();
        } else if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
          event.preventDefault();
          onSave(edited());
        }
      }}
    >
      <div className="row">
        <label htmlFor={`${id}-type`}>Type</label>
        <select id={`${id}-type`} value={type} onChange={(e) => setType(e.target.value as BlockType)}>
          {BLOCK_TYPES.map((t) => (
            <option key={t} value={t}>
              {t}
            </option>
          ))}
        </select>
        {type === "heading" && (
          <>
            <label htmlFor={`${id}-level`}>Level</label>
            <select id={`${id}-level`} value={level} onChange={(e) => setLevel(Number(e.target.value) as 1 | 2 | 3)}>
              {[1, 2, 3].map((n) => (
                <option key={n} value={n}>
                  {n}
                </option>
              ))}
            </select>
          </>
        )}
        {type === "todo" && (
          <label className="inline">
            <input type="checkbox" checked={checked} onChange={(e) => setChecked(e.target.checked)} /> Done
          </label>
        )}
        {type === "code" && (
          <>
            <label htmlFor={`${id}-language`}>Language</label>
            <input id={`${id}-language`} value={language} onChange={(e) => setLanguage(e.target.value)} />
          </>
        )}
      </div>
      <label htmlFor={`${id}-text`} className="sr-only">
        Text
      </label>
      <textarea
        id={`${id}-text`}
        ref={textRef}
        value={text}
        rows={Math.min(8, Math.max(2, Math.ceil(text.length / 60)))}
        onChange={(e) => setText(e.target.value)}
      />
      <div className="row">
        <button type="submit" className="primary small">
          Keep my edit
        </button>
        <button type="button" className="small" onClick={onCancel}>
          Cancel
        </button>
        <span className="muted small-print">Ctrl+Enter keeps it, Esc cancels</span>
      </div>
    </form>
  );
}
