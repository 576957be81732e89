"use client";

import { type Block, PAGE_OPTION_KEYS, PAGE_OPTION_REGISTRY, type PageOptionKey } from "@mnote/contract";
import { type ReactNode, type Ref, useEffect, useRef } from "react";
import { onOff, WordDiff } from "./diff-view";
import { PageBody, type PageBodyHandle, type PageSuggestions, SuggestionActions } from "./page-body";
import { type ProposalItem, useDecisions, useProposalDetail } from "./proposals";
import { toolLabel, whoText } from "./labels";
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
            {toolLabel(p.toolName)} by {whoText(p.who)}
            {p.stale ? " (stale)" : ""}
          </option>
        ))}
        <option value={0}>None (the page as it is)</option>
      </select>
    </p>
  );
}

/** One pending proposal as the page shows it: its changes, what the person may do, and their draft. */
function usePageSuggestions(proposal: ProposalItem, pageRef: PageRef, onReject: () => void) {
  const review = useReview();
  const detail = useProposalDetail(proposal, pageRef, true);
  const decisions = useDecisions(proposal, pageRef, () => undefined);
  const ref = (change: number) => ({ proposalId: proposal.id, change });
  const suggestions: PageSuggestions | null = detail.data
    ? {
        proposalId: proposal.id,
        changes: detail.data.preview.changes,
        stale: proposal.stale,
        decidable: proposal.decidable,
        cuttable: proposal.partiallyApplicable,
        editable: proposal.editable,
        leftOut: review.leftOut(proposal.id),
        edits: review.edits(proposal.id),
        current: review.current,
        editing: review.editing,
        onFocusChange: (change) => review.setCurrent(ref(change), "page"),
        onKeep: (change, keep) => review.setLeftOut(ref(change), !keep),
        onEdit: (change) => review.setEditing(change === null ? null : ref(change)),
        onSaveEdit: (blockId, block) => review.setEdit(proposal.id, blockId, block),
        onApproveAll: decisions.approve,
        onRejectAll: () => {
          review.setRejecting(proposal.id);
          onReject();
        },
      }
    : null;
  return { detail, decisions, suggestions };
}

/**
 * The page's title and options, with the shown proposal's rename and option changes where they land
 * (issue 32 item 6): the heading with its deleted and inserted words, each option change as "Wide layout:
 * off → on", each with its own Accept / Reject. `data-title` is the page's title as it is.
 */
export function PageHeading(
  props: HeadingProps & { proposal: ProposalItem | null; pageRef: PageRef; onReject: () => void },
) {
  const { proposal, pageRef, onReject, ...heading } = props;
  if (!proposal) return <PlainHeading {...heading} />;
  return <SuggestedHeading key={proposal.id} {...heading} proposal={proposal} pageRef={pageRef} onReject={onReject} />;
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
  onReject,
  ...heading
}: HeadingProps & { proposal: ProposalItem; pageRef: PageRef; onReject: () => void }) {
  const { page } = heading;
  const { suggestions: s } = usePageSuggestions(proposal, pageRef, onReject);
  const entries = (s?.changes ?? []).map((change, index) => ({ change, index }));
  const title = entries.find((e) => e.change.kind === "set_title");
  const options = entries.filter((e) => e.change.kind === "set_option");
  if (!s || (!title && options.length === 0)) return <PlainHeading {...heading} />;
  const titleLeft = title ? s.leftOut.has(title.index) : false;
  const after = title?.change.kind === "set_title" ? title.change.after : page.title;
  return (
    <>
      {title ? (
        <div
          className={`title-suggestion-row${titleLeft ? " left-out" : ""}`}
          data-change={title.index}
          data-kind="set_title"
          data-left-out={titleLeft || undefined}
        >
          {/* Against the title as it is now: what approving it would do. */}
          <h1 data-testid="page-title" data-title={page.title} className="title-suggestion">
            <WordDiff before={page.title} after={after} />
          </h1>
          <SuggestionActions suggestions={s} change={title.index} what={`Rename to “${after}”`} left={titleLeft} />
        </div>
      ) : (
        <h1 data-testid="page-title" data-title={page.title}>
          {page.title}
        </h1>
      )}
      <PageMeta {...heading} />
      {options.map(({ change, index }) => {
        if (change.kind !== "set_option") return null;
        const left = s.leftOut.has(index);
        const label = PAGE_OPTION_REGISTRY[change.key as PageOptionKey]?.label ?? change.key;
        const what = `${label}: ${onOff(change.before)} → ${onOff(change.after)}`;
        return (
          <p
            key={index}
            className={`option-suggestion${left ? " left-out" : ""}`}
            data-change={index}
            data-kind="set_option"
            data-option={change.key}
            data-left-out={left || undefined}
          >
            <span>
              Option <strong>{label}</strong>: <del>{onOff(change.before)}</del> → <ins>{onOff(change.after)}</ins>
            </span>
            <SuggestionActions suggestions={s} change={index} what={what} left={left} />
          </p>
        );
      })}
    </>
  );
}

/** The page with one pending proposal's changes where they land, in step with its card in the panel. */
export function PageSuggestionsFor({
  proposal,
  pageRef,
  blocks,
  highlighted,
  handle,
  onReject,
}: {
  proposal: ProposalItem;
  pageRef: PageRef;
  blocks: Block[];
  highlighted: string | null;
  handle: Ref<PageBodyHandle>;
  /** Reject was asked for from the page: the panel's reject form (with its reason) takes over. */
  onReject: () => void;
}) {
  const review = useReview();
  const { detail, decisions, suggestions } = usePageSuggestions(proposal, pageRef, onReject);
  const inner = useRef<PageBodyHandle>(null);
  // The page follows a change focused in the list.
  const current = review.current;
  useEffect(() => {
    if (current && current.proposalId === proposal.id && review.currentFrom !== "page")
      inner.current?.scrollToChange(current.change);
  }, [current, proposal.id, review.currentFrom]);
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
    <div className="in-page-review" data-testid="in-page-review" data-proposal-id={proposal.id}>
      <p className="muted suggestion-note" role="note">
        Showing “{toolLabel(proposal.toolName)}” by {whoText(proposal.who)} as suggestions.
        {proposal.stale && (
          <strong className="stale-note" data-testid="stale-in-page">
            {" "}
            Stale: the page changed since this proposal. Re-run it in the panel to review it again.
          </strong>
        )}
      </p>
      {decisions.outcome && (
        <p
          role={decisions.outcome.tone === "error" ? "alert" : "status"}
          className={`notice ${decisions.outcome.tone}`}
        >
          {decisions.outcome.text}
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
