"use client";

import {
  type Block,
  BLOCK_TYPES,
  type BlockType,
  canonicalBlock,
  LIMITS,
  LIST_TYPES,
  type Mark,
  MARKED_TYPES,
} from "@mnote/contract";
import { inlineToMarkdown, MarkdownRefused, markdownToInline } from "@mnote/markdown/inline";
import { useEffect, useId, useMemo, useRef, useState } from "react";
import { FormattedText } from "./blocks";
import { CharactersLeft } from "./characters-left";

/** The box's text for a block: Markdown where the block holds formatting, its plain text (code) otherwise. */
export function editableText(block: Block): string {
  return MARKED_TYPES.has(block.type)
    ? inlineToMarkdown(block.text, "marks" in block ? (block.marks ?? []) : [])
    : block.text;
}

/**
 * What the box says, as a block's text and marks, for a block of `type`: a type that holds formatting reads
 * the box as Markdown (decision 0026's rules: `**Monday**` is bold, a refused link is refused with its
 * reason); code and dividers take the box as it is.
 */
export function readBox(box: string, type: BlockType): { text: string; marks: Mark[] } | { refused: string } {
  if (!MARKED_TYPES.has(type)) return { text: box, marks: [] };
  try {
    return markdownToInline(box);
  } catch (error) {
    if (error instanceof MarkdownRefused) return { refused: error.message };
    throw error;
  }
}

/**
 * Edit a proposed block before accepting it (issues 22 and 32): its text with its formatting, type and the
 * type's attributes. The box holds the block's inline Markdown (bold, italic, strikethrough, code, links), read
 * back into marks by the same rules as a model's Markdown, with a preview of the result. The person's version
 * goes to the server as a block (`panel.proposals.applyEdited`), which checks it against the contract's limits
 * and names the field it refuses; only what the Markdown cannot say is refused here.
 */
export function BlockEditor({
  block,
  onSave,
  onCancel,
  label,
  saveLabel = "Keep my edit",
}: {
  block: Block;
  onSave: (block: Block) => void;
  onCancel: () => void;
  /** What is being edited, for the form's accessible name ("Edit inserted paragraph"). */
  label: string;
  /** The save button's words: "Apply my edit" where saving decides the change at once. */
  saveLabel?: string;
}) {
  const id = useId();
  const [type, setType] = useState<BlockType>(block.type);
  const [text, setText] = useState(() => editableText(block));
  const [level, setLevel] = useState(block.type === "heading" ? block.level : 1);
  const [checked, setChecked] = useState(block.type === "todo" ? block.checked : false);
  const [language, setLanguage] = useState(block.type === "code" ? block.language : "");
  const textRef = useRef<HTMLTextAreaElement>(null);
  useEffect(() => textRef.current?.focus(), []);

  const read = useMemo(() => readBox(text, type), [text, type]);
  const [refusal, setRefusal] = useState<string | null>(null);
  useEffect(() => setRefusal(null), [text, type]);

  const edited = (content: { text: string; marks: Mark[] }): Block => {
    // A list item keeps its indent while it stays a list item.
    const { text, marks } = content;
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
  // The contract's limit on a block's text, counted on what the block will hold (the Markdown read into marks): the
  // box counts down and refuses past it before sending, keeping what was typed (issue 36).
  const used = "text" in read ? read.text.length : text.length;
  const over = used > LIMITS.blockTextLength;
  const save = () => {
    if ("refused" in read) setRefusal(read.refused);
    else if (over) textRef.current?.focus();
    else onSave(canonicalBlock(edited(read)));
  };
  const marked = MARKED_TYPES.has(type);
  return (
    <form
      className="block-editor"
      aria-label={label}
      onSubmit={(event) => {
        event.preventDefault();
        save();
      }}
      onKeyDown={(event) => {
        if (event.key === "Escape") {
          event.preventDefault();
          event.stopPropagation();
          onCancel();
        } else if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
          event.preventDefault();
          save();
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
        {marked ? "Text (Markdown)" : "Text"}
      </label>
      <textarea
        id={`${id}-text`}
        ref={textRef}
        value={text}
        rows={Math.min(8, Math.max(2, Math.ceil(text.length / 60)))}
        aria-describedby={marked ? `${id}-hint ${id}-count` : `${id}-count`}
        aria-invalid={refusal !== null || over || undefined}
        onChange={(e) => setText(e.target.value)}
      />
      <CharactersLeft id={`${id}-count`} used={used} limit={LIMITS.blockTextLength} />
      {marked && (
        <p className="muted small-print" id={`${id}-hint`}>
          Markdown: **bold**, *italic*, ~~struck~~, `code`, [link](https://…)
        </p>
      )}
      {marked && "text" in read && read.marks.length > 0 && (
        <p className="edit-preview" data-testid="edit-preview">
          <span className="muted">Preview: </span>
          <FormattedText block={{ id: block.id, type: "paragraph", text: read.text, marks: read.marks }} />
        </p>
      )}
      {refusal !== null && (
        <p role="alert" className="notice error">
          {refusal}. Nothing was kept.
        </p>
      )}
      <div className="row">
        <button type="submit" className="primary small">
          {saveLabel}
        </button>
        <button type="button" className="small" onClick={onCancel}>
          Cancel
        </button>
        <span className="muted small-print">Ctrl+Enter saves, Esc cancels</span>
      </div>
    </form>
  );
}
