"use client";

import { type Block, PAGE_OPTION_KEYS, PAGE_OPTION_REGISTRY } from "@mnote/contract";
import { type ReactNode, type Ref, useEffect, useRef } from "react";
import { onOff, optionLabel, WordDiff } from "./diff-view";
import { PageBody, type PageBodyHandle, type PageSuggestions, SuggestionActions } from "./page-body";
import { OutcomeText, type ProposalItem, proposalTitle, useDecisions, useProposalDetail } from "./proposals";
import { whoText } from "./labels";
import { useReview } from "./review-state";

type PageRef = { workspaceId: string; documentId: string };

/** Several pending proposals: pick the one the page shows (never two overlaid), or none. */
export function SuggestionSwitcher({ pending: all, shown }: { pending: ProposalItem[]; shown: ProposalItem | null }) {
  const review = useReview();
  const pending = all.filter((p) => p.status === "pending");
  if (pending.length === 0) return null;
  return (
    <p className="suggestion-switcher row">
      <label htmlFor="shown-proposal">Suggestions in the page:</label>
      <select id="shown-proposal" value={shown?.id ?? 0} onChange={(e) => review.choose(Number(e.target.value))}>
        {pending.map((p, i) => (
          <option key={p.id} value={p.id}>
            {i === 0 ? "Newest: " : ""}
            {proposalTitle(p)} by {whoText(p.who)}
          </option>
        ))}
        <option value={0}>None (the page as it is)</option>
      </select>
    </p>
  );
}

/** One pending proposal as the page shows it: its changes as the server has them, and the person's decisions. */
function usePageSuggestions(proposal: ProposalItem, pageRef: PageRef) {
  const review = useReview();
  const detail = useProposalDetail(proposal, pageRef, true);
  const decisions = useDecisions(proposal, pageRef, () => undefined);
  const ref = (change: number) => ({ proposalId: proposal.id, change });
  const suggestions: PageSuggestions | null = detail.data
    ? {
        proposalId: proposal.id,
        changes: detail.data.changes,
        placements: detail.data.placements,
        busy: decisions.busy,
        current: review.current,
        editing: review.editing,
        onFocusChange: (change) => review.setCurrent(ref(change), "page"),
        onEdit: (change) => review.setEditing(change === null ? null : ref(change)),
        onDecide: decisions.decide,
      }
    : null;
  return { detail, decisions, suggestions };
}

/**
 * The page's title and options, with the shown proposal's rename and option changes where they land
 * (issue 32 item 6): the heading with its deleted and inserted words, each option change as "Wide layout:
 * off → on", each with its own Accept / Reject. `data-title` is the page's title as it is.
 */
export function PageHeading(props: HeadingProps & { proposal: ProposalItem | null; pageRef: PageRef }) {
  const { proposal, pageRef, ...heading } = props;
  if (!proposal) return <PlainHeading {...heading} />;
  return <SuggestedHeading key={proposal.id} {...heading} proposal={proposal} pageRef={pageRef} />;
}

interface HeadingProps {
  page: { title: string; options: Record<string, unknown> };
  /** Shown first in the line under the title (the revision). */
  meta: ReactNode;
}

function PageMeta({ page, meta }: HeadingProps) {
  return (
    <p className="page-meta">
      {meta}
      {PAGE_OPTION_KEYS.filter((key) => page.options[key]).map((key) => (
        <span key={key} className="badge option">
          {PAGE_OPTION_REGISTRY[key].label}
        </span>
      ))}
    </p>
  );
}

function PlainHeading(props: HeadingProps) {
  return (
    <>
      <h1 data-testid="page-title" data-title={props.page.title}>
        {props.page.title}
      </h1>
      <PageMeta {...props} />
    </>
  );
}

function SuggestedHeading({
  proposal,
  pageRef,
  ...heading
}: HeadingProps & { proposal: ProposalItem; pageRef: PageRef }) {
  const { page } = heading;
  const { suggestions: s, decisions } = usePageSuggestions(proposal, pageRef);
  // The open ones only: a decided rename or option is the page's title or option now.
  const open = (s?.changes ?? []).filter((c) => c.state === "pending" || c.state === "conflict");
  const title = open.find((c) => c.proposed.kind === "set_title");
  const options = open.filter((c) => c.proposed.kind === "set_option");
  if (!s || (!title && options.length === 0)) return <PlainHeading {...heading} />;
  const after = title?.proposed.kind === "set_title" ? title.proposed.after : page.title;
  return (
    <>
      {title ? (
        <div
          className={`title-suggestion-row${title.state === "conflict" ? " conflict" : ""}`}
          data-change={title.index}
          data-kind="set_title"
          data-state={title.state}
        >
          {/* Against the title as it is now: what approving it would do. */}
          <h1 data-testid="page-title" data-title={page.title} className="title-suggestion">
            <WordDiff before={page.title} after={after} />
          </h1>
          {title.state === "conflict" && title.proposed.kind === "set_title" && (
            <span className="muted small-print" data-testid="conflict">
              Renamed since: the agent proposed “{after}” for “{title.proposed.before}”.
            </span>
          )}
          <SuggestionActions suggestions={s} change={title} what={`Rename to “${after}”`} />
        </div>
      ) : (
        <h1 data-testid="page-title" data-title={page.title}>
          {page.title}
        </h1>
      )}
      <PageMeta {...heading} />
      {decisions.outcome && (
        <p
          role={decisions.outcome.tone === "error" ? "alert" : "status"}
          className={`notice ${decisions.outcome.tone}`}
        >
          <OutcomeText outcome={decisions.outcome} />
        </p>
      )}
      {options.map((option) => {
        const { proposed: change, index } = option;
        if (change.kind !== "set_option") return null;
        const label = optionLabel(change.key);
        const what = `${label}: ${onOff(change.before)} → ${onOff(change.after)}`;
        return (
          <p
            key={index}
            className={`option-suggestion${option.state === "conflict" ? " conflict" : ""}`}
            data-change={index}
            data-kind="set_option"
            data-option={change.key}
            data-state={option.state}
          >
            <span>
              Option <strong>{label}</strong>: <del>{onOff(change.before)}</del> → <ins>{onOff(change.after)}</ins>
            </span>
            <SuggestionActions suggestions={s} change={option} what={what} />
          </p>
        );
      })}
    </>
  );
}

/** The suggestions still to decide in the page, in page order. */
const OPEN_SUGGESTIONS = '.suggestion[data-state="pending"], .suggestion[data-state="conflict"]';

/** The page with one pending proposal's changes where they land, in step with its card in the panel. */
export function PageSuggestionsFor({
  proposal,
  pageRef,
  blocks,
  highlighted,
  handle,
}: {
  proposal: ProposalItem;
  pageRef: PageRef;
  blocks: Block[];
  highlighted: string | null;
  handle: Ref<PageBodyHandle>;
}) {
  const review = useReview();
  const { detail, decisions, suggestions } = usePageSuggestions(proposal, pageRef);
  const inner = useRef<PageBodyHandle>(null);
  // The page follows a change focused in the list.
  const current = review.current;
  useEffect(() => {
    if (current && current.proposalId === proposal.id && review.currentFrom !== "page")
      inner.current?.scrollToChange(current.change);
  }, [current, proposal.id, review.currentFrom]);
  // A decided change leaves the suggestions (it is the page's block now), and a closed editor leaves with its box:
  // the focus they had goes to the next suggestion — or this review — never to <body> (issue 36). Only while the
  // focus was in here: a person who moved it elsewhere keeps it there.
  const reviewRef = useRef<HTMLDivElement>(null);
  const focusedHere = useRef(false);
  // Where the focused suggestion stood among the open ones: the one that takes its place is its successor.
  const focusedAt = useRef(0);
  const changes = suggestions?.changes;
  const editing = review.editing;
  useEffect(() => {
    if (!focusedHere.current || (document.activeElement && document.activeElement !== document.body)) return;
    const box = reviewRef.current;
    const open = [...(box?.querySelectorAll<HTMLElement>(OPEN_SUGGESTIONS) ?? [])];
    (open[Math.min(focusedAt.current, open.length - 1)] ?? box)?.focus({ preventScroll: true });
  }, [changes, editing]);
  useEffect(
    () => () => {
      // The proposal is done and its review leaves the page: the focus stays in the page, not on <body>.
      if (!focusedHere.current) return;
      requestAnimationFrame(() => {
        if (!document.activeElement || document.activeElement === document.body)
          document.querySelector<HTMLElement>('[data-testid="page-blocks"]')?.focus({ preventScroll: true });
      });
    },
    [],
  );
  const forward = (handleRef: Ref<PageBodyHandle>, value: PageBodyHandle | null) => {
    inner.current = value;
    if (typeof handleRef === "function") handleRef(value);
    else if (handleRef) (handleRef as { current: PageBodyHandle | null }).current = value;
  };
  if (!suggestions) {
    return (
      <>
        {detail.isError && <p className="muted">Could not load the suggestions: {detail.error.message}</p>}
        <PageBody blocks={blocks} highlighted={highlighted} suggestions={null} handle={(v) => forward(handle, v)} />
      </>
    );
  }
  return (
    <div
      ref={reviewRef}
      className="in-page-review"
      data-testid="in-page-review"
      data-proposal-id={proposal.id}
      tabIndex={-1}
      onFocus={(event) => {
        focusedHere.current = true;
        const suggestion = (event.target as HTMLElement).closest(OPEN_SUGGESTIONS);
        const open = [...event.currentTarget.querySelectorAll(OPEN_SUGGESTIONS)];
        if (suggestion) focusedAt.current = Math.max(0, open.indexOf(suggestion));
      }}
      onBlur={(event) => {
        // Focus moved to something outside (not lost with a removed element, which has no next target).
        if (event.relatedTarget && !event.currentTarget.contains(event.relatedTarget)) focusedHere.current = false;
      }}
    >
      <p className="muted suggestion-note" role="note">
        Showing “{proposalTitle(proposal)}” by {whoText(proposal.who)} as suggestions.
        {(detail.data?.changeCounts.conflict ?? 0) > 0 && (
          <strong className="stale-note" data-testid="conflicts-in-page">
            {" "}
            {detail.data!.changeCounts.conflict} of its changes conflict with the page as it is now: choose for each.
          </strong>
        )}
      </p>
      {decisions.outcome && (
        <p
          role={decisions.outcome.tone === "error" ? "alert" : "status"}
          className={`notice ${decisions.outcome.tone}`}
        >
          <OutcomeText outcome={decisions.outcome} />
        </p>
      )}
      <PageBody
        blocks={blocks}
        highlighted={highlighted}
        handle={(v) => forward(handle, v)}
        suggestions={suggestions}
      />
    </div>
  );
}
