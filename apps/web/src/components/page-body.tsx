"use client";

import type { Block, Change } from "@mnote/contract";
import { type SuggestedRow, suggestedPage } from "@mnote/diff";
import { useWindowVirtualizer } from "@tanstack/react-virtual";
import { memo, type ReactNode, type Ref, useImperativeHandle, useLayoutEffect, useMemo, useRef, useState } from "react";
import { BlockEditor } from "./block-editor";
import { blockLabel, BlockView } from "./blocks";
import { AttributeChanges, WordDiff } from "./diff-view";
import type { ChangeRef } from "./review-state";

/** What the page view shows of a proposal: its changes, and what the person may do and has chosen. */
export interface PageSuggestions {
  proposalId: number;
  changes: Change[];
  stale: boolean;
  /** The person may decide on it (the server's `decidable`). */
  decidable: boolean;
  /** Its changes can be kept or left out one by one (the server's `partiallyApplicable`). */
  cuttable: boolean;
  /** Its inserted and changed blocks can be edited before it is applied (the server's `editable`). */
  editable: boolean;
  leftOut: ReadonlySet<number>;
  edits: ReadonlyMap<string, Block>;
  current: ChangeRef | null;
  editing: ChangeRef | null;
  onFocusChange: (change: number) => void;
  onKeep: (change: number, keep: boolean) => void;
  onEdit: (change: number | null) => void;
  onSaveEdit: (blockId: string, block: Block | null) => void;
  /** A proposal that cannot be cut: Accept and Reject decide all of it. */
  onApproveAll: () => void;
  onRejectAll: () => void;
}

/** What the page screen asks of the view: bring a block, or a change, on screen (only rows on screen exist). */
export interface PageBodyHandle {
  scrollToBlock: (blockId: string) => boolean;
  scrollToChange: (change: number) => void;
}

/** Unchanged stretches longer than this fold into one expandable line; this many blocks stay on each side. */
const FOLD_CONTEXT = 2;
const FOLD_MIN = 4;
const ESTIMATED_BLOCK_PX = 36;

type PageRow = SuggestedRow | { row: "fold"; key: string; blocks: Block[] };

/**
 * The page, only the blocks on screen in the DOM (a page can hold 10,000 blocks, issue 22 item 5), with a
 * proposal's changes shown where they land: inserted blocks and words in `<ins>`, deleted ones in `<del>`,
 * changed blocks with their word diff and attribute changes, moves marked. Each change has Accept / Reject on
 * it; inserted and changed blocks can be edited in place. Long unchanged stretches fold and can be expanded.
 */
export function PageBody({
  blocks,
  highlighted,
  suggestions,
  handle,
}: {
  blocks: Block[];
  highlighted: string | null;
  suggestions: PageSuggestions | null;
  handle: Ref<PageBodyHandle>;
}) {
  const [expanded, setExpanded] = useState<ReadonlySet<string>>(new Set());
  const rows = useMemo(
    () => (suggestions ? folded(suggestedPage(blocks, suggestions.changes), expanded) : plain(blocks)),
    [blocks, suggestions?.changes, expanded],
  );
  const listRef = useRef<HTMLDivElement>(null);
  const [scrollMargin, setScrollMargin] = useState(0);
  // Where the list starts in the document: what is above it (a title suggestion, a notice) can change with any
  // render, so it is read after each one (an unchanged value re-renders nothing).
  const measure = () => setScrollMargin((listRef.current?.getBoundingClientRect().top ?? 0) + window.scrollY);
  useLayoutEffect(measure);
  useLayoutEffect(() => {
    window.addEventListener("resize", measure);
    return () => window.removeEventListener("resize", measure);
  }, []);
  const virtualizer = useWindowVirtualizer({
    count: rows.length,
    estimateSize: () => ESTIMATED_BLOCK_PX,
    overscan: 12,
    scrollMargin,
    getItemKey: (i) => rowKey(rows[i]!),
  });
  const rowOfBlock = useMemo(() => {
    const map = new Map<string, number>();
    rows.forEach((row, i) => {
      if (row.row === "fold") row.blocks.forEach((block) => map.set(block.id, i));
      else if (row.row !== "delete") map.set(row.block.id, i);
    });
    return map;
  }, [rows]);
  const rowOfChange = useMemo(() => {
    const map = new Map<number, number>();
    rows.forEach((row, i) => {
      if (row.row !== "fold" && row.row !== "same") map.set(row.change, i);
      if (row.row === "update" && row.moved !== null) map.set(row.moved, i);
    });
    return map;
  }, [rows]);
  const wide = () => window.matchMedia("(min-width: 1001px)").matches;
  useImperativeHandle(
    handle,
    () => ({
      scrollToBlock: (blockId) => {
        const row = rowOfBlock.get(blockId);
        if (row === undefined) return false;
        // On a narrow screen the page sits under the panel: scrolling it would pull the review away.
        if (wide()) virtualizer.scrollToIndex(row, { align: "center" });
        return true;
      },
      scrollToChange: (change) => {
        const row = rowOfChange.get(change);
        if (row !== undefined && wide()) virtualizer.scrollToIndex(row, { align: "center" });
      },
    }),
    [rowOfBlock, rowOfChange, virtualizer],
  );
  if (blocks.length === 0 && !suggestions?.changes.length) return <p className="muted">This page is empty.</p>;
  const items = virtualizer.getVirtualItems();
  const offset = (items[0]?.start ?? 0) - virtualizer.options.scrollMargin;
  return (
    <div ref={listRef} className="page-rows" style={{ height: virtualizer.getTotalSize(), position: "relative" }}>
      <div style={{ transform: `translateY(${offset}px)` }}>
        {items.map((item) => {
          const row = rows[item.index]!;
          return (
            // A row is a flow root: its blocks' margins count in its measured height, so the list's height (the sum
            // of the rows') is the height its rows take and the page card grows with them (issue 32 item 7).
            <div key={item.key} ref={virtualizer.measureElement} data-index={item.index} className="page-row">
              {row.row === "fold" ? (
                <button
                  type="button"
                  className="link fold"
                  data-testid="unchanged-stretch"
                  onClick={() => setExpanded((all) => new Set(all).add(row.key))}
                >
                  ⋯ {row.blocks.length} unchanged blocks — show them
                </button>
              ) : row.row === "same" ? (
                <BlockView block={row.block} highlighted={row.block.id === highlighted} />
              ) : (
                <Suggestion row={row} suggestions={suggestions!} />
              )}
            </div>
          );
        })}
      </div>
    </div>
  );
}

const plain = (blocks: Block[]): PageRow[] => blocks.map((block) => ({ row: "same", block }));

/**
 * Runs of unchanged blocks longer than the context on both sides fold into one row, unless expanded. A
 * proposal that changes no block (a rename, an option) folds nothing: the page reads as it is.
 */
function folded(rows: SuggestedRow[], expanded: ReadonlySet<string>): PageRow[] {
  if (rows.every((row) => row.row === "same")) return rows;
  const result: PageRow[] = [];
  let run: Block[] = [];
  const flush = (atStart: boolean, atEnd: boolean) => {
    const head = atStart ? 0 : FOLD_CONTEXT;
    const tail = atEnd ? 0 : FOLD_CONTEXT;
    const key = run[0]?.id ?? "";
    if (run.length - head - tail >= FOLD_MIN && !expanded.has(key)) {
      run.slice(0, head).forEach((block) => result.push({ row: "same", block }));
      result.push({ row: "fold", key, blocks: run.slice(head, run.length - tail) });
      run.slice(run.length - tail).forEach((block) => result.push({ row: "same", block }));
    } else run.forEach((block) => result.push({ row: "same", block }));
    run = [];
  };
  let seenChange = false;
  for (const row of rows) {
    if (row.row === "same") {
      run.push(row.block);
      continue;
    }
    flush(!seenChange, false);
    seenChange = true;
    result.push(row);
  }
  flush(!seenChange, true);
  return result;
}

const rowKey = (row: PageRow) =>
  row.row === "fold" ? `fold:${row.key}` : row.row === "same" ? `b:${row.block.id}` : `c:${row.change}:${row.row}`;

const KIND_WORDS = { insert: "Inserted", delete: "Deleted", update: "Changed", move: "Moved" } as const;

/** One change where it lands, with its own Accept / Reject (and Edit for inserted and changed blocks). */
const Suggestion = memo(function Suggestion({
  row,
  suggestions: s,
}: {
  row: Exclude<SuggestedRow, { row: "same" }>;
  suggestions: PageSuggestions;
}) {
  const left = s.leftOut.has(row.change);
  const edit = row.row === "insert" || row.row === "update" ? s.edits.get(row.block.id) : undefined;
  const shown = edit ?? row.block;
  const isCurrent = s.current?.proposalId === s.proposalId && s.current.change === row.change;
  const isEditing = s.editing?.proposalId === s.proposalId && s.editing.change === row.change;
  const editable = s.editable && (row.row === "insert" || row.row === "update");
  const what = `${KIND_WORDS[row.row]} ${blockLabel(shown)}`;
  let body;
  if (row.row === "insert") {
    body = (
      <ins className="suggested">
        <BlockView block={shown} />
      </ins>
    );
  } else if (row.row === "delete") {
    body = (
      <del className="suggested">
        <BlockView block={row.block} />
      </del>
    );
  } else if (row.row === "update") {
    body = (
      <>
        <AttributeChanges before={row.before} after={shown} />
        <BlockView
          block={shown}
          text={row.before.text === shown.text ? undefined : <WordDiff before={row.before.text} after={shown.text} />}
        />
        {row.moved !== null && <span className="badge warn">moved here</span>}
      </>
    );
  } else {
    body = (
      <>
        <BlockView block={row.block} />
        <span className="badge warn">moved here</span>
      </>
    );
  }
  return (
    <div
      className={`suggestion ${row.row}${left ? " left-out" : ""}${isCurrent ? " current" : ""}`}
      data-change={row.change}
      data-kind={row.row}
      data-left-out={left || undefined}
      data-block-id={row.row === "delete" ? undefined : row.block.id}
      tabIndex={-1}
      role="group"
      aria-label={`${what}${left ? " (left out)" : ""}`}
      onFocus={(e) => {
        if (e.target === e.currentTarget) s.onFocusChange(row.change);
      }}
      onClick={() => s.onFocusChange(row.change)}
    >
      {isEditing ? (
        <BlockEditor
          block={shown}
          label={`Edit ${what}`}
          onCancel={() => s.onEdit(null)}
          onSave={(block) => {
            s.onSaveEdit(row.block.id, block);
            s.onEdit(null);
          }}
        />
      ) : (
        body
      )}
      {edit && !isEditing && <span className="badge info">your edit</span>}
      {left && <span className="badge muted-badge">left out</span>}
      {!isEditing && (
        <SuggestionActions suggestions={s} change={row.change} what={what} left={left}>
          {editable && (
            <button type="button" className="small" aria-label={`Edit: ${what}`} onClick={() => s.onEdit(row.change)}>
              ✎ Edit
            </button>
          )}
          {edit && (
            <button type="button" className="small link" onClick={() => s.onSaveEdit(row.block.id, null)}>
              Undo my edit
            </button>
          )}
        </SuggestionActions>
      )}
    </div>
  );
});

/**
 * Accept / Reject on one change where it shows (a block, the title, an option): kept or left out when the
 * proposal can be cut, else the whole proposal's decision. Nothing when the person may not decide.
 */
export function SuggestionActions({
  suggestions: s,
  change,
  what,
  left,
  children,
}: {
  suggestions: PageSuggestions;
  change: number;
  what: string;
  left: boolean;
  children?: ReactNode;
}) {
  if (!s.decidable || s.stale) return null;
  return (
    <span className="suggestion-actions">
      {s.cuttable ? (
        <>
          <button
            type="button"
            className="small"
            aria-pressed={!left}
            aria-label={`Accept: ${what}`}
            onClick={() => s.onKeep(change, true)}
          >
            ✓ Accept
          </button>
          <button
            type="button"
            className="small"
            aria-pressed={left}
            aria-label={`Reject: ${what}`}
            onClick={() => s.onKeep(change, false)}
          >
            ✗ Reject
          </button>
        </>
      ) : (
        <>
          <button type="button" className="small" aria-label={`Accept: ${what}`} onClick={s.onApproveAll}>
            ✓ Accept
          </button>
          <button type="button" className="small" aria-label={`Reject: ${what}`} onClick={s.onRejectAll}>
            ✗ Reject
          </button>
        </>
      )}
      {children}
    </span>
  );
}
