"use client";

import type { Block } from "@mnote/contract";
import { markChanges, type Placement, type SuggestedRow } from "@mnote/diff";
import type { RouterInputs, RouterOutputs } from "~/trpc/types";
import { useWindowVirtualizer } from "@tanstack/react-virtual";
import { memo, type Ref, useImperativeHandle, useLayoutEffect, useMemo, useRef, useState } from "react";
import { BlockEditor } from "./block-editor";
import { CommentMarker } from "./comments";
import { blockLabel, BlockView } from "./blocks";
import { AttributeChanges, FormattingDiff, WordDiff } from "./diff-view";
import type { ChangeRef } from "./review-state";
import { openRows } from "./open-suggestions";

/** One of a proposal's changes as the server answers it (decision 0030): its state, conflict and choices. */
export type ServerChange = RouterOutputs["panel"]["proposals"]["get"]["changes"][number];
export type ChangeDecisionInput = RouterInputs["panel"]["proposals"]["decide"]["decisions"][number];

/**
 * What the page view shows of a proposal: its changes as the server has them now (pending, in conflict, decided)
 * with where each lands, and what the person may do with each — every button is one server decision
 * (`panel.proposals.decide`), so a reload or a second reviewer's panel shows the same.
 */
export interface PageSuggestions {
  proposalId: number;
  changes: ServerChange[];
  placements: (Placement | null)[];
  /** A decision is on its way: the buttons wait. */
  busy: boolean;
  current: ChangeRef | null;
  editing: ChangeRef | null;
  onFocusChange: (change: number) => void;
  onEdit: (change: number | null) => void;
  onDecide: (decisions: ChangeDecisionInput[]) => void;
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
    () =>
      suggestions ? folded(openRows(blocks, suggestions.changes, suggestions.placements), expanded) : plain(blocks),
    [blocks, suggestions?.changes, suggestions?.placements, expanded],
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
  if (rows.length === 0) return <p className="muted">This page is empty.</p>;
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
                <>
                  <CommentMarker block={row.block} />
                  <BlockView block={row.block} highlighted={row.block.id === highlighted} />
                </>
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

/** One change where it lands, with what the person may do with it (each a server decision). */
const Suggestion = memo(function Suggestion({
  row,
  suggestions: s,
}: {
  row: Exclude<SuggestedRow, { row: "same" }>;
  suggestions: PageSuggestions;
}) {
  const change = s.changes[row.change];
  const conflict = change?.state === "conflict" ? change.conflict : null;
  const isCurrent = s.current?.proposalId === s.proposalId && s.current.change === row.change;
  const isEditing = s.editing?.proposalId === s.proposalId && s.editing.change === row.change;
  const what = `${KIND_WORDS[row.row]} ${blockLabel(row.block)}`;
  let body;
  if (row.row === "insert") {
    body = (
      <ins className="suggested">
        <BlockView block={row.block} />
      </ins>
    );
  } else if (row.row === "delete") {
    body = (
      <del className="suggested">
        <BlockView block={row.block} />
      </del>
    );
  } else if (row.row === "update") {
    // Only the formatting changed: the page draws it (bold as bold), before and after (issue 36).
    const formattingOnly = row.before.text === row.block.text && markChanges(row.before, row.block).length > 0;
    body = (
      <>
        <AttributeChanges before={row.before} after={row.block} formattingShown={formattingOnly} />
        <BlockView
          block={row.block}
          text={
            formattingOnly ? (
              <FormattingDiff before={row.before} after={row.block} />
            ) : row.before.text === row.block.text ? undefined : (
              <WordDiff before={row.before.text} after={row.block.text} />
            )
          }
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
  if (conflict)
    body = <ConflictVersions proposed={row.block} current={conflict.current} deleting={row.row === "delete"} />;
  return (
    <div
      className={`suggestion ${row.row}${conflict ? " conflict" : ""}${isCurrent ? " current" : ""}`}
      data-change={row.change}
      data-kind={row.row}
      data-state={change?.state}
      data-block-id={row.row === "delete" ? undefined : row.block.id}
      tabIndex={-1}
      role="group"
      aria-label={`${what}${conflict ? " (conflict)" : ""}`}
      onFocus={(e) => {
        if (e.target === e.currentTarget) s.onFocusChange(row.change);
      }}
      onClick={() => s.onFocusChange(row.change)}
    >
      {isEditing ? (
        <BlockEditor
          block={row.block}
          label={`Edit ${what}`}
          saveLabel="Apply my edit"
          onCancel={() => s.onEdit(null)}
          onSave={(block) => {
            s.onDecide([{ index: row.change, choice: "edit", block }]);
            s.onEdit(null);
          }}
        />
      ) : (
        body
      )}
      {!isEditing && change && (
        <SuggestionActions suggestions={s} change={change} what={what} onEdit={() => s.onEdit(row.change)} />
      )}
    </div>
  );
});

/** A conflict (decision 0030): the page's version now beside the agent's, so the person sees what they choose. */
function ConflictVersions({
  proposed,
  current,
  deleting,
}: {
  proposed: Block;
  current: Block | string | boolean | null;
  deleting: boolean;
}) {
  return (
    <div className="conflict-versions" data-testid="conflict">
      <p className="conflict-note">
        <strong>Conflict:</strong> this block changed since the agent proposed {deleting ? "deleting" : "changing"} it.
      </p>
      <div className="version" data-version="page">
        <span className="tag">The page now</span>
        {current && typeof current === "object" ? <BlockView block={current} /> : <em>(deleted since)</em>}
      </div>
      <div className="version" data-version="agent">
        <span className="tag">The agent’s</span>
        {deleting ? <em>(delete it)</em> : <BlockView block={proposed} />}
      </div>
    </div>
  );
}

const CHOICE_LABELS = {
  accept: "✓ Accept",
  reject: "✗ Reject",
  edit: "✎ Edit",
  keep_mine: "Keep mine",
  take_agents: "Take the agent’s",
} as const;
const CHOICE_WORDS = {
  accept: "Accept",
  reject: "Reject",
  edit: "Edit",
  keep_mine: "Keep mine",
  take_agents: "Take the agent’s",
} as const;

/**
 * What the person may do with one change where it shows (a block, the title, an option) — the server's `choices`
 * for it, each one decision sent at once: accept, reject, edit; on a conflict keep mine, take the agent's, edit.
 */
export function SuggestionActions({
  suggestions: s,
  change,
  what,
  onEdit,
}: {
  suggestions: PageSuggestions;
  change: ServerChange;
  what: string;
  /** Opens the editor (a block change); without it, Edit is not offered here. */
  onEdit?: () => void;
}) {
  const choices = change.choices.filter((choice) => choice !== "edit" || onEdit);
  if (choices.length === 0) return null;
  return (
    <span className="suggestion-actions">
      {choices.map((choice) => (
        <button
          key={choice}
          type="button"
          className="small"
          disabled={s.busy}
          aria-label={`${CHOICE_WORDS[choice]}: ${what}`}
          onClick={(event) => {
            event.stopPropagation();
            if (choice === "edit") onEdit!();
            else s.onDecide([{ index: change.index, choice }]);
          }}
        >
          {CHOICE_LABELS[choice]}
        </button>
      ))}
    </span>
  );
}
