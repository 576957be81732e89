"use client";

import { type Block, type Change, PAGE_OPTION_REGISTRY, type PageOptionKey, type ToolWarning } from "@mnote/contract";
import { diffWords, indentChange, markChanges, type ReviewRow, reviewRows } from "@mnote/diff";
import { useVirtualizer } from "@tanstack/react-virtual";
import { memo, useEffect, useMemo, useRef, useState } from "react";
import { type BlockTarget, useFocusBlock } from "./block-focus";
import { blockLabel, FormattedText } from "./blocks";
import { possessive } from "./labels";
import { MarkdownText } from "./markdown-text";

/** An attribute value as text: an object (a future attribute) as JSON, never "[object Object]". */
const shown = (value: unknown) => (typeof value === "object" && value !== null ? JSON.stringify(value) : String(value));

/** An option's value as a person reads it: on / off. */
export const onOff = (value: unknown) => (value === true ? "on" : value === false ? "off" : shown(value));

/** An option as a person reads it ("Wide layout"), never its key ("wideLayout"); an unknown key as sent. */
export const optionLabel = (key: string) => PAGE_OPTION_REGISTRY[key as PageOptionKey]?.label ?? key;

/**
 * A block whose text stays and whose formatting changes: the text as it was and as it would be, each with its
 * formatting drawn (bold as bold), so the person sees the change itself; the words for it are beside it for screen
 * readers (AttributeChanges).
 */
export function FormattingDiff({ before, after }: { before: Block; after: Block }) {
  return (
    <span className="formatting-diff same-text">
      <del aria-hidden="true">
        <FormattedText block={before} />
      </del>{" "}
      <span aria-hidden="true">→</span>{" "}
      <ins>
        <FormattedText block={after} />
      </ins>
    </span>
  );
}

/**
 * A changed block's body: its attribute changes, then its text — the formatting drawn where only the formatting
 * changed, else a word diff (whose changed words carry no formatting; the chips say what formatting changed).
 */
export function ChangedText({ before, after }: { before: Block; after: Block }) {
  const sameText = before.text === after.text;
  const formatted = sameText && markChanges(before, after).length > 0;
  return (
    <>
      <AttributeChanges before={before} after={after} formattingShown={formatted} />
      {formatted ? (
        <FormattingDiff before={before} after={after} />
      ) : sameText ? (
        <span className="same-text">
          <FormattedText block={after} />
        </span>
      ) : (
        <WordDiff before={before.text} after={after.text} />
      )}
    </>
  );
}

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

/**
 * What an update does besides its text: the block type, a todo's tick, a heading's level, a code block's
 * language. Every field but `text` and `id` counts, so an attribute added later shows up as "field: a → b".
 */
function attributeChanges(before: Block, after: Block): { what: string; from: string; to: string }[] {
  if (before.type !== after.type) return [{ what: "type", from: blockLabel(before), to: blockLabel(after) }];
  const left = before as Record<string, unknown>;
  const right = after as Record<string, unknown>;
  // Formatting (decision 0026) has its own words: see FormattingChanges; indent reads like a level change.
  const keys = new Set(
    [...Object.keys(left), ...Object.keys(right)].filter(
      (k) => k !== "text" && k !== "id" && k !== "type" && k !== "marks" && k !== "indent",
    ),
  );
  const indent = indentChange(before, after);
  const indentRow = indent ? [{ what: "list level", from: String(indent.from), to: String(indent.to) }] : [];
  return [
    ...indentRow,
    ...[...keys]
      .filter((key) => left[key] !== right[key])
      .map((key) =>
        key === "checked"
          ? { what: "todo", from: left[key] ? "☑ done" : "☐ not done", to: right[key] ? "☑ done" : "☐ not done" }
          : key === "level"
            ? { what: "heading level", from: String(left[key]), to: String(right[key]) }
            : key === "language"
              ? { what: "code language", from: shown(left[key] || "none"), to: shown(right[key] || "none") }
              : { what: key, from: shown(left[key] ?? "—"), to: shown(right[key] ?? "—") },
      ),
  ];
}

/**
 * A changed block's type and attribute changes ("heading level: 1 → 2"), marked; nothing when there are none. Where
 * the formatting itself is drawn beside it (`formattingShown`), its words ("bold added to 'Friday'") stay for screen
 * readers only: the person sees the bold, not a chip about it (issue 36).
 */
export function AttributeChanges({
  before,
  after,
  formattingShown = false,
}: {
  before: Block;
  after: Block;
  formattingShown?: boolean;
}) {
  const attributes = attributeChanges(before, after);
  const formatting = markChanges(before, after);
  if (attributes.length === 0 && formatting.length === 0) return null;
  return (
    <span className="attr-changes">
      {attributes.map((a) => (
        <span key={a.what} className="attr-change" data-attribute={a.what}>
          {a.what}: <del>{a.from}</del> → <ins>{a.to}</ins>
        </span>
      ))}
      {formatting.map((words) => (
        <span
          key={words}
          className={`attr-change mark-change${formattingShown ? " sr-only" : ""}`}
          data-attribute="formatting"
        >
          {words}
        </span>
      ))}
    </span>
  );
}

/**
 * A change's tag, body and where it lands. `place` is the server's words for where an insert or a move goes ("after
 * 'Rollout'"); without it the block's kind alone says what it is — never a position number (issue 36).
 */
function describe(change: Change, place = "") {
  const at = (block: Block) => (place ? `${blockLabel(block)} ${place}` : blockLabel(block));
  switch (change.kind) {
    case "insert":
      return {
        tag: "Inserted",
        className: "insert",
        body: (
          <span>
            {change.block.text ? <FormattedText block={change.block} /> : <em>({blockLabel(change.block)})</em>}
          </span>
        ),
        where: at(change.block),
      };
    case "delete":
      return {
        tag: "Deleted",
        className: "delete",
        body: <del>{change.block.text ? <FormattedText block={change.block} /> : `(${blockLabel(change.block)})`}</del>,
        where: blockLabel(change.block),
      };
    case "update": {
      return {
        tag: "Changed",
        className: "update",
        body: <ChangedText before={change.before} after={change.after} />,
        where: blockLabel(change.after),
      };
    }
    case "move":
      return {
        tag: "Moved",
        className: "move",
        body: (
          <span>
            <FormattedText block={change.block} />
          </span>
        ),
        where: place || blockLabel(change.block),
      };
    case "set_title":
      return {
        tag: "Title",
        className: "update",
        body: <WordDiff before={change.before} after={change.after} />,
        where: "",
      };
    case "set_option":
      return {
        tag: "Option",
        className: "update",
        body: (
          <span>
            {optionLabel(change.key)}: <del>{onOff(change.before)}</del> → <ins>{onOff(change.after)}</ins>
          </span>
        ),
        where: "",
      };
    case "set_summary":
      return {
        tag: change.before === null ? "New summary" : "Summary",
        className: change.before === null ? "insert" : "update",
        body:
          change.before === null ? (
            <MarkdownText markdown={change.after} />
          ) : (
            <WordDiff before={change.before} after={change.after} />
          ),
        where: "",
      };
    case "add_ai_note":
      return { tag: "New AI note", className: "insert", body: <MarkdownText markdown={change.content} />, where: "" };
    case "add_comment":
      return {
        tag: change.threadId ? "Reply" : "New comment",
        className: "insert",
        body: <MarkdownText markdown={change.markdown} />,
        where: change.quote ? `on “${change.quote}”` : "",
      };
  }
}

/** The block a change points at on the page as it is now (an insert has none yet: its position). */
function targetOf(change: Change): BlockTarget | null {
  switch (change.kind) {
    case "insert":
      return { position: change.index };
    case "delete":
    case "move":
      return { blockId: change.block.id };
    case "update":
      return { blockId: change.before.id };
    default:
      return null;
  }
}

/** Counts for a proposal's summary line, by what a person reads: inserted, deleted, changed, moved, title, options. */
export function countChanges(changes: readonly Change[]) {
  const counts = { inserted: 0, deleted: 0, changed: 0, moved: 0, title: 0, options: 0, other: 0 };
  for (const change of changes) {
    if (change.kind === "insert") counts.inserted++;
    else if (change.kind === "delete") counts.deleted++;
    else if (change.kind === "update") counts.changed++;
    else if (change.kind === "move") counts.moved++;
    else if (change.kind === "set_title") counts.title++;
    else if (change.kind === "set_option") counts.options++;
    else counts.other++;
  }
  return counts;
}

/** A row's height before it is measured; rows are measured once shown, so this only shapes the first scrollbar. */
const ESTIMATED_ROW_PX = 64;

/**
 * The changes of one proposal in page order, with the untouched stretches between them folded into one
 * line each. Only the rows on screen are in the DOM (a proposal can carry thousands of changes), so
 * "Previous / Next change" and the arrow keys move through them; the focused change lights up its block
 * in the page. With `selection`, each change gets a checkbox so a person can keep only some of them.
 */
export function ChangeList({
  changes,
  warnings,
  selection,
  leftOut = [],
  edits,
  follow = null,
  onFocusChange,
  onToggle,
  states,
  onDecide,
  idPrefix,
}: {
  changes: Change[];
  /** Each change as the server has it now (decision 0030): decided ones say by whom, conflicts offer the choices. */
  states?: readonly ChangeState[];
  /** Decide one change at once (a conflict's keep mine / take the agent's). */
  onDecide?: (index: number, choice: "keep_mine" | "take_agents") => void;
  warnings: ToolWarning[];
  selection?: Set<number>;
  /** A proposal applied in part: the changes that were not written. */
  leftOut?: readonly number[];
  /** The person's versions of proposed blocks (by block id), shown in place of the agent's. */
  edits?: ReadonlyMap<string, Block>;
  /** A change focused elsewhere (the page): the list scrolls to it and marks it, without taking the focus. */
  follow?: number | null;
  /** A change got the focus here: the page follows. */
  onFocusChange?: (change: number) => void;
  onToggle?: (index: number) => void;
  idPrefix: string;
}) {
  const focusBlock = useFocusBlock();
  const rows = useMemo(() => reviewRows(changes), [changes]);
  // Row index of each change, in reading order: what Previous / Next step through.
  const changeRows = useMemo(() => rows.flatMap((row, i) => (row.row === "change" ? [i] : [])), [rows]);
  const ordinalOfRow = useMemo(() => new Map(changeRows.map((rowIndex, ordinal) => [rowIndex, ordinal])), [changeRows]);
  const [current, setCurrent] = useState<number | null>(null);
  const scrollRef = useRef<HTMLDivElement>(null);
  const latest = useRef<RowEvents | null>(null);
  const events = useMemo<RowEvents>(
    () => ({
      onFocus: (rowIndex, change) => latest.current?.onFocus(rowIndex, change),
      onClick: (change) => latest.current?.onClick(change),
      onKey: (event, rowIndex) => latest.current?.onKey(event, rowIndex),
      onToggle: (changeIndex) => latest.current?.onToggle(changeIndex),
      onDecide: (changeIndex, choice) => latest.current?.onDecide(changeIndex, choice),
    }),
    [],
  );
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ESTIMATED_ROW_PX,
    overscan: 6,
    getItemKey: (i) => rowKey(rows[i]!, i),
  });
  const notWritten = useMemo(() => new Set(leftOut), [leftOut]);
  const warned = useMemo(
    () => new Set(warnings.flatMap((w) => (w.field ? [w.field.replace(/^options\./, "")] : []))),
    [warnings],
  );
  const rowOfChange = useMemo(
    () => new Map(rows.flatMap((row, i) => (row.row === "change" ? [[row.change, i] as const] : []))),
    [rows],
  );
  useEffect(() => {
    if (follow === null) return;
    const rowIndex = rowOfChange.get(follow);
    if (rowIndex === undefined) return;
    setCurrent(rowIndex);
    virtualizer.scrollToIndex(rowIndex, { align: "center" });
  }, [follow, rowOfChange, virtualizer]);
  if (changes.length === 0) return <p className="muted">No visible change: the page already looks like this.</p>;

  const rowId = (rowIndex: number) => `${idPrefix}-row-${rowIndex}`;
  const goTo = (ordinal: number) => {
    const rowIndex = changeRows[Math.max(0, Math.min(ordinal, changeRows.length - 1))]!;
    virtualizer.scrollToIndex(rowIndex, { align: "center" });
    // The row may only exist after the virtualizer renders it: focus it on the next frames.
    const focus = (tries: number) =>
      requestAnimationFrame(() => {
        const element = document.getElementById(rowId(rowIndex));
        if (element) element.focus({ preventScroll: true });
        else if (tries > 0) focus(tries - 1);
      });
    focus(5);
  };
  const ordinal = current === null ? -1 : (ordinalOfRow.get(current) ?? -1);
  // Rows are memoised (a scroll re-renders the list, not the rows already drawn): they call back through a
  // stable object whose handlers always see this render's state.
  latest.current = {
    onFocus: (rowIndex, change) => {
      setCurrent(rowIndex);
      focusBlock(targetOf(change));
      const row = rows[rowIndex];
      if (row?.row === "change") onFocusChange?.(row.change);
    },
    onClick: (change) => focusBlock(targetOf(change)),
    onKey: (event, rowIndex) => onRowKey(event, rowIndex),
    onToggle: (changeIndex) => onToggle?.(changeIndex),
    onDecide: (changeIndex, choice) => onDecide?.(changeIndex, choice),
  };
  const onRowKey = (event: React.KeyboardEvent, rowIndex: number) => {
    if (event.target !== event.currentTarget) return; // keys inside the checkbox stay the checkbox's
    const at = ordinalOfRow.get(rowIndex) ?? -1;
    const next =
      event.key === "ArrowDown"
        ? at + 1
        : event.key === "ArrowUp"
          ? at - 1
          : event.key === "Home"
            ? 0
            : event.key === "End"
              ? changeRows.length - 1
              : null;
    if (next === null || at < 0) return;
    event.preventDefault();
    goTo(next);
  };

  return (
    <div className="change-review">
      <div className="row change-nav" role="group" aria-label="Move through the changes">
        <button type="button" className="small" disabled={ordinal <= 0} onClick={() => goTo(ordinal - 1)}>
          ↑ Previous change
        </button>
        <button
          type="button"
          className="small"
          disabled={ordinal >= changeRows.length - 1}
          onClick={() => goTo(ordinal + 1)}
        >
          ↓ Next change
        </button>
        <span className="muted" aria-live="polite" data-testid="change-position">
          {ordinal >= 0
            ? `Change ${ordinal + 1} of ${changeRows.length}`
            : `${changeRows.length} change${changeRows.length === 1 ? "" : "s"} in page order`}
        </span>
      </div>
      <div ref={scrollRef} className="change-scroll" role="region" aria-label="Changes in page order" tabIndex={0}>
        <ul className="changes" style={{ height: virtualizer.getTotalSize() }}>
          {virtualizer.getVirtualItems().map((item) => {
            const row = rows[item.index]!;
            const style = { transform: `translateY(${item.start}px)` };
            if (row.row === "unchanged") {
              return (
                <li
                  key={item.key}
                  ref={virtualizer.measureElement}
                  data-index={item.index}
                  className="unchanged"
                  style={style}
                >
                  ⋯ {row.blocks} unchanged block{row.blocks === 1 ? "" : "s"}
                </li>
              );
            }
            const change = changes[row.change]!;
            return (
              <ChangeRow
                key={item.key}
                change={change}
                changeIndex={row.change}
                rowIndex={item.index}
                ordinal={ordinalOfRow.get(item.index) ?? 0}
                start={item.start}
                rowId={rowId(item.index)}
                checkboxId={`${idPrefix}-change-${row.change}`}
                kept={
                  selection && onToggle && (states?.[row.change]?.state ?? "pending") === "pending"
                    ? selection.has(row.change)
                    : undefined
                }
                state={states?.[row.change]}
                current={current === item.index}
                flagged={change.kind === "set_option" && warned.has(change.key)}
                leftOut={notWritten.has(row.change)}
                edit={editOf(change, edits)}
                measure={virtualizer.measureElement}
                events={events}
              />
            );
          })}
        </ul>
      </div>
    </div>
  );
}

interface RowEvents {
  onFocus: (rowIndex: number, change: Change) => void;
  onClick: (change: Change) => void;
  onKey: (event: React.KeyboardEvent, rowIndex: number) => void;
  onToggle: (changeIndex: number) => void;
  onDecide: (changeIndex: number, choice: "keep_mine" | "take_agents") => void;
}

/** Where one change stands on the server, as the list shows it (a subset of `ProposalChange`). */
export interface ChangeState {
  state: "pending" | "conflict" | "applied" | "applied_with_edits" | "rejected";
  decision: { by: { actorName: string | null }; reason: string | null } | null;
  choices: readonly string[];
  /** An insert or a move: where it goes, in the server's words ("after 'Rollout'"). */
  where?: string;
}

/**
 * What a change not applied did to the page, said so it cannot be misread: a rejected deletion keeps the block
 * ("not deleted"), where "left out" read as if the block would go (issue 36).
 */
export const notAppliedWords = (kind: Change["kind"]) => (kind === "delete" ? "not deleted" : "not applied");

/** "applied by Ada", "not deleted — rejected by Ben: “not now”", "conflict": a decided or conflicting change's badge. */
export function stateWords(state: ChangeState, kind?: Change["kind"]): string | null {
  // A proposal decided whole (Approve, Reject, or before decision 0030) has no decision per change: its card says it.
  if (!state.decision && state.state !== "conflict") return null;
  const by = state.decision?.by.actorName ?? "someone";
  switch (state.state) {
    case "applied":
      return `applied by ${by}`;
    case "applied_with_edits":
      return `applied with ${possessive(by)} edit`;
    case "rejected":
      return `${kind === "delete" ? "not deleted — " : ""}rejected by ${by}${state.decision?.reason ? `: “${state.decision.reason}”` : ""}`;
    case "conflict":
      return "conflict: the page changed here";
    default:
      return null;
  }
}

/** One change, drawn once while it stays on screen: its word diff is the costly part. */
const ChangeRow = memo(function ChangeRow({
  change,
  changeIndex,
  rowIndex,
  ordinal,
  start,
  rowId,
  checkboxId,
  kept,
  current,
  flagged,
  leftOut,
  edit,
  state,
  measure,
  events,
}: {
  change: Change;
  changeIndex: number;
  rowIndex: number;
  ordinal: number;
  start: number;
  rowId: string;
  checkboxId: string;
  /** Undefined when the proposal cannot be applied in part (no checkbox). */
  kept: boolean | undefined;
  current: boolean;
  flagged: boolean;
  leftOut: boolean;
  /** The person's version of the block this change inserts or changes. */
  edit: Block | undefined;
  state: ChangeState | undefined;
  measure: (element: Element | null) => void;
  events: RowEvents;
}) {
  const place = state?.where ?? "";
  const { tag, className, body, where } = useMemo(() => describe(withEdit(change, edit), place), [change, edit, place]);
  return (
    <li
      id={rowId}
      ref={measure}
      data-index={rowIndex}
      data-kind={change.kind}
      data-change={changeIndex}
      data-position={positionOf(change)}
      className={`change ${className}${flagged ? " flagged" : ""}${current ? " current" : ""}${leftOut ? " left-out" : ""}`}
      data-left-out={leftOut || undefined}
      style={{ transform: `translateY(${start}px)` }}
      tabIndex={-1}
      onFocus={(e) => {
        // The row itself, not its checkbox: a click on the box must not scroll the page under the pointer.
        if (e.target === e.currentTarget) events.onFocus(rowIndex, change);
      }}
      onClick={() => events.onClick(change)}
      onKeyDown={(e) => events.onKey(e, rowIndex)}
    >
      {kept !== undefined && (
        <input
          type="checkbox"
          id={checkboxId}
          checked={kept}
          onChange={() => events.onToggle(changeIndex)}
          aria-label={`Keep change ${ordinal + 1}: ${tag}${where ? `, ${where}` : ""}`}
        />
      )}
      <span className="tag">{tag}</span>
      {where && <span className="where">{where}</span>}
      <span className="body">{body}</span>
      {flagged && <span className="badge warn">not wired yet</span>}
      {leftOut && !state?.decision && <span className="badge muted-badge">{notAppliedWords(change.kind)}</span>}
      {edit && <span className="badge info">your edit</span>}
      {state && stateWords(state, change.kind) && (
        <span
          className={`badge ${state.state === "conflict" ? "warn" : state.state === "rejected" ? "muted-badge" : "ok"}`}
          data-testid="change-state"
          data-state={state.state}
        >
          {stateWords(state, change.kind)}
        </span>
      )}
      {state?.state === "conflict" && (
        <span className="row conflict-choices">
          {state.choices.includes("keep_mine") && (
            <button type="button" className="small" onClick={() => events.onDecide(changeIndex, "keep_mine")}>
              Keep mine
            </button>
          )}
          {state.choices.includes("take_agents") && (
            <button type="button" className="small" onClick={() => events.onDecide(changeIndex, "take_agents")}>
              Take the agent’s
            </button>
          )}
        </span>
      )}
    </li>
  );
});

/**
 * A block change's place in the page (1-based; a delete's in the page as it is, the rest in the page as it will be):
 * for tools and tests reading the list's order (`data-position`), never shown — people read "after 'Rollout'".
 */
function positionOf(change: Change): number | undefined {
  switch (change.kind) {
    case "insert":
    case "delete":
    case "update":
      return change.index + 1;
    case "move":
      return change.to + 1;
    default:
      return undefined;
  }
}

/** The person's edit of the block a change inserts or changes, if any. */
function editOf(change: Change, edits?: ReadonlyMap<string, Block>): Block | undefined {
  if (!edits?.size) return undefined;
  if (change.kind === "insert") return edits.get(change.block.id);
  if (change.kind === "update") return edits.get(change.after.id);
  return undefined;
}

/** The change as the person would apply it: their version in place of the proposed block. */
function withEdit(change: Change, edit: Block | undefined): Change {
  if (!edit) return change;
  if (change.kind === "insert") return { ...change, block: edit };
  if (change.kind === "update") return { ...change, after: edit };
  return change;
}

const rowKey = (row: ReviewRow, index: number) => (row.row === "change" ? `c${row.change}` : `u${index}`);
