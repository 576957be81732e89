"use client";

import type { Block } from "@mnote/contract";
import { type Ref, useEffect, useRef } from "react";
import { PageBody, type PageBodyHandle } from "./page-body";
import { type ProposalItem, useDecisions, useProposalDetail } from "./proposals";
import { toolLabel, whoText } from "./labels";
import { useReview } from "./review-state";

type PageRef = { workspaceId: string; documentId: string };

/** The proposal the page shows as suggestions: the one the person picked while it is pending, else the newest pending. */
export function useShownProposal(proposals: ProposalItem[] | undefined): ProposalItem | null {
  const review = useReview();
  const pending = proposals?.filter((p) => p.status === "pending") ?? [];
  if (review.chosen === 0) return null;
  return pending.find((p) => p.id === review.chosen) ?? pending[0] ?? null;
}

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
          </option>
        ))}
        <option value={0}>None (the page as it is)</option>
      </select>
    </p>
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
  const detail = useProposalDetail(proposal, pageRef, true);
  const decisions = useDecisions(proposal, pageRef, () => undefined);
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
  if (!detail.data) {
    return (
      <>
        {detail.isError && <p className="muted">Could not load the suggestions: {detail.error.message}</p>}
        <PageBody blocks={blocks} highlighted={highlighted} suggestions={null} handle={(v) => forward(handle, v)} />
      </>
    );
  }
  const ref = (change: number) => ({ proposalId: proposal.id, change });
  return (
    <div className="in-page-review" data-testid="in-page-review" data-proposal-id={proposal.id}>
      <p className="muted suggestion-note" role="note">
        Showing “{toolLabel(proposal.toolName)}” by {whoText(proposal.who)} as suggestions.
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
        suggestions={{
          proposalId: proposal.id,
          changes: detail.data.preview.changes,
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
        }}
      />
    </div>
  );
}
