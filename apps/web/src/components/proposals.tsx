"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useMemo, useRef, useState } from "react";
import { useTRPC } from "~/trpc/react";
import type { DecisionAnswer, PageRef, RouterOutputs } from "~/trpc/types";
import { ChangeList, countChanges } from "./diff-view";
import { formatTime, proposalStatusText, relativeTime, toolLabel, whoText } from "./labels";
import { CopyableId } from "./copyable-id";

type Outcome = { tone: "ok" | "error"; text: string; offerRerun?: boolean };

/** The parts of an output envelope the panel reports back to the person. */
type EnvelopeSummary = Pick<DecisionAnswer, "ok" | "result" | "audit" | "error">;

function describeEnvelope(envelope: EnvelopeSummary, kept?: number, total?: number): Outcome {
  if (envelope.ok) {
    const revision = (envelope.result as { revision?: number } | null)?.revision;
    const part =
      kept !== undefined && total !== undefined && kept < total ? ` in part (${kept} of ${total} changes)` : "";
    return {
      tone: "ok",
      text: `Applied${part} as command ${envelope.audit.commandId}${revision ? ` (revision ${revision})` : ""}.`,
    };
  }
  if (envelope.error?.code === "mnote_tool_conflict") {
    return { tone: "error", text: "The page changed since this proposal. Nothing was written.", offerRerun: true };
  }
  return { tone: "error", text: `${envelope.error?.code}: ${envelope.error?.message}. Nothing was written.` };
}

/**
 * Pending cards shown open (their changes fetched) without a click; the rest open on demand. A preview
 * can be megabytes, so the list carries summaries and a card fetches its changes only when shown.
 */
const OPEN_BY_DEFAULT = 5;

/** A proposal's args and preview never change (its status lives in the list): refreshes leave them cached. */
export const isProposalDetail = (queryKey: readonly unknown[]) =>
  JSON.stringify(queryKey).includes('"proposals","get"');

/** Every proposal on the page; pending ones are what a person has to decide on. */
export function Proposals({ pageRef }: { pageRef: PageRef }) {
  const trpc = useTRPC();
  const [showDecided, setShowDecided] = useState(false);
  // The last decision stays on screen after its card leaves the list, and focus lands on it, not on <body>.
  const [decided, setDecided] = useState<Outcome | null>(null);
  const decidedRef = useRef<HTMLParagraphElement>(null);
  useEffect(() => {
    if (decided) decidedRef.current?.focus();
  }, [decided]);
  const proposals = useQuery(trpc.panel.proposals.list.queryOptions(pageRef));
  if (proposals.isPending) return <p className="muted">Loading proposals…</p>;
  if (proposals.isError)
    return (
      <p role="alert" className="error">
        Could not load proposals: {proposals.error.message}{" "}
        <button type="button" className="small" onClick={() => void proposals.refetch()}>
          Retry
        </button>
      </p>
    );
  const visible = proposals.data.filter((p) => showDecided || p.status === "pending");
  return (
    <div>
      <div className="row between">
        <p className="muted" aria-live="polite">
          {proposals.data.filter((p) => p.status === "pending").length} pending
        </p>
        <label className="inline">
          <input type="checkbox" checked={showDecided} onChange={(e) => setShowDecided(e.target.checked)} /> Show
          applied and rejected
        </label>
      </div>
      {decided && (
        <p
          ref={decidedRef}
          tabIndex={-1}
          className={decided.tone === "ok" ? "notice ok" : "notice error"}
          role="status"
          data-testid="decided"
        >
          {decided.text}{" "}
          <button type="button" className="link" onClick={() => setDecided(null)}>
            Dismiss
          </button>
        </p>
      )}
      {visible.length === 0 && (
        <p className="muted">Nothing waiting for you. Dry runs from agents appear here as they happen.</p>
      )}
      <ol className="proposals">
        {visible.map((proposal, i) => (
          <ProposalCard
            key={proposal.id}
            proposal={proposal}
            pageRef={pageRef}
            openAtFirst={proposal.status === "pending" && i < OPEN_BY_DEFAULT}
            onDecided={setDecided}
          />
        ))}
      </ol>
    </div>
  );
}

type ProposalItem = RouterOutputs["panel"]["proposals"]["list"][number];

function ProposalCard({
  proposal,
  pageRef,
  openAtFirst,
  onDecided,
}: {
  proposal: ProposalItem;
  pageRef: PageRef;
  openAtFirst: boolean;
  onDecided: (outcome: Outcome) => void;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [open, setOpen] = useState(openAtFirst);
  // The full preview (every change) is fetched when the card is shown open, never with the list.
  const detail = useQuery(
    trpc.panel.proposals.get.queryOptions(
      { ...pageRef, proposalId: proposal.id },
      { enabled: open, staleTime: Infinity },
    ),
  );
  // The changes never change, but a decision fills in which were left out: a cached detail from before it is refreshed.
  const detailStatus = detail.data?.status;
  const refetchDetail = detail.refetch;
  useEffect(() => {
    if (detailStatus !== undefined && detailStatus !== proposal.status) void refetchDetail();
  }, [detailStatus, proposal.status, refetchDetail]);
  const summary = proposal.summary;
  const changeCount = summary?.changeCount ?? detail.data?.preview.changes.length ?? 0;
  const warnings = summary?.warnings ?? detail.data?.preview.warnings ?? [];
  // The server says whether this proposal can be cut change by change (tool, status, stale, the person's rights).
  const selectable = proposal.partiallyApplicable;
  // Changes the person unticked; everything else is kept.
  const [unticked, setUnticked] = useState(() => new Set<number>());
  const keep = useMemo(
    () => Array.from({ length: changeCount }, (_, i) => i).filter((i) => !unticked.has(i)),
    [changeCount, unticked],
  );
  const selection = useMemo(() => new Set(keep), [keep]);
  const counts = useMemo(() => (detail.data ? countChanges(detail.data.preview.changes) : null), [detail.data]);
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const refresh = () =>
    queryClient.invalidateQueries({ queryKey: trpc.panel.pathKey(), predicate: (q) => !isProposalDetail(q.queryKey) });
  const onError = (error: { message: string }) => setOutcome({ tone: "error", text: error.message });

  // A decision that took leaves the card behind (the list shows pending ones): the list keeps saying what happened.
  const settle = (result: Outcome) => {
    if (result.tone === "ok") onDecided(result);
    else setOutcome(result);
    void refresh();
  };
  const approve = useMutation(
    trpc.panel.proposals.approve.mutationOptions({
      onSuccess: (envelope) => settle(describeEnvelope(envelope)),
      onError,
    }),
  );
  const reject = useMutation(
    trpc.panel.proposals.reject.mutationOptions({
      onSuccess: () => settle({ tone: "ok", text: `Rejected “${toolLabel(proposal.toolName)}”. Nothing was written.` }),
      onError,
    }),
  );
  const rerun = useMutation(
    trpc.panel.proposals.rerun.mutationOptions({
      onSuccess: (r) => {
        setOutcome(
          r.envelope.ok
            ? { tone: "ok", text: "Dry run computed again on the current page: review the new proposal." }
            : describeEnvelope(r.envelope),
        );
        void refresh();
      },
      onError,
    }),
  );
  // One server step: the kept changes are written and the proposal is marked applied in part, or nothing happens.
  const applyPart = useMutation(
    trpc.panel.proposals.applyPart.mutationOptions({
      onSuccess: (envelope) => settle(describeEnvelope(envelope, keep.length, changeCount)),
      onError,
    }),
  );
  const busy = approve.isPending || reject.isPending || rerun.isPending || applyPart.isPending;
  const partial = selectable && unticked.size > 0;
  const headingId = `proposal-${proposal.id}`;

  const selectAll = () => setUnticked(new Set());
  const selectNone = () => setUnticked(new Set(Array.from({ length: changeCount }, (_, i) => i)));

  return (
    <li
      className={`card proposal status-${proposal.status}`}
      aria-labelledby={headingId}
      data-proposal-id={proposal.id}
      data-tool={proposal.toolName}
      data-tool-call-id={proposal.toolCallId ?? undefined}
    >
      <div className="row between">
        <h3 id={headingId}>{toolLabel(proposal.toolName)}</h3>
        <span className="badges">
          {proposal.held && <span className="badge info">held for approval</span>}
          {proposal.stale && proposal.status === "pending" && <span className="badge warn">stale: page changed</span>}
          {proposal.status !== "pending" && (
            <span
              className={`badge ${proposal.status === "rejected" ? "muted-badge" : "ok"}`}
              data-testid="proposal-status"
            >
              {proposalStatusText(proposal)}
            </span>
          )}
        </span>
      </div>
      <dl className="meta">
        <dt>Who</dt>
        <dd>{whoText(proposal.who)}</dd>
        <dt>Run</dt>
        <dd>
          <code title="runId">{proposal.runId}</code>{" "}
          <details className="ids">
            <summary>ids</summary>
            <CopyableId label="user" value={proposal.actorId} />{" "}
            <CopyableId label="session" value={proposal.sessionId} />{" "}
            <CopyableId label="call" value={proposal.toolCallId} title="toolCallId" />{" "}
            <CopyableId label="trace" value={proposal.traceId} />
          </details>
        </dd>
        <dt>When</dt>
        <dd>
          <time dateTime={proposal.at} title={formatTime(proposal.at)} suppressHydrationWarning>
            {relativeTime(proposal.at)}
          </time>
        </dd>
        <dt>Base revision</dt>
        <dd>{proposal.baseRevision}</dd>
      </dl>
      {warnings.length > 0 && (
        <ul className="warnings" aria-label="Warnings">
          {warnings.map((w, i) => (
            <li key={i} className="warning">
              ⚠ {w.message}
            </li>
          ))}
        </ul>
      )}
      <div className="review-bar" data-testid="review-bar">
        <p className="summary" data-testid="proposal-summary">
          <strong>
            {changeCount} change{changeCount === 1 ? "" : "s"}
          </strong>
          {counts ? (
            <>
              {counts.inserted > 0 && <span className="n insert"> · {counts.inserted} inserted</span>}
              {counts.deleted > 0 && <span className="n delete"> · {counts.deleted} deleted</span>}
              {counts.changed > 0 && <span className="n update"> · {counts.changed} changed</span>}
              {counts.moved > 0 && <span className="n move"> · {counts.moved} moved</span>}
              {counts.title > 0 && <span className="n"> · title</span>}
              {counts.options > 0 && (
                <span className="n">
                  {" "}
                  · {counts.options} option{counts.options === 1 ? "" : "s"}
                </span>
              )}
              {counts.other > 0 && (
                <span className="n">
                  {" "}
                  · {counts.other} artifact{counts.other === 1 ? "" : "s"}
                </span>
              )}
            </>
          ) : (
            summary && <span> · {summary.plan.join("; ")}</span>
          )}
        </p>
        {proposal.status === "pending" && proposal.decidable && (
          <div className="row actions">
            {proposal.stale ? (
              <button
                type="button"
                className="primary"
                disabled={busy}
                onClick={() => rerun.mutate({ ...pageRef, proposalId: proposal.id })}
              >
                Re-run dry run
              </button>
            ) : partial ? (
              <button
                type="button"
                className="primary"
                disabled={busy || keep.length === 0}
                onClick={() => applyPart.mutate({ ...pageRef, proposalId: proposal.id, keep })}
              >
                Apply {keep.length} of {changeCount} changes
              </button>
            ) : (
              <button
                type="button"
                className="primary"
                disabled={busy}
                onClick={() => approve.mutate({ ...pageRef, proposalId: proposal.id })}
              >
                Approve
              </button>
            )}
            <button
              type="button"
              disabled={busy}
              onClick={() => reject.mutate({ ...pageRef, proposalId: proposal.id })}
            >
              Reject
            </button>
            {selectable && open && changeCount > 1 && (
              <span className="row select-some" role="group" aria-label="Select changes">
                <button type="button" className="small" disabled={unticked.size === 0} onClick={selectAll}>
                  Select all
                </button>
                <button type="button" className="small" disabled={keep.length === 0} onClick={selectNone}>
                  Select none
                </button>
              </span>
            )}
          </div>
        )}
        {proposal.status === "pending" && !proposal.decidable && (
          <p className="muted">You can read this page but not approve edits on it.</p>
        )}
        <div aria-live="polite">
          {outcome && (
            <p
              className={outcome.tone === "ok" ? "notice ok" : "notice error"}
              role={outcome.tone === "error" ? "alert" : "status"}
            >
              {outcome.text}{" "}
              {outcome.offerRerun && (
                <button
                  type="button"
                  className="link"
                  disabled={busy}
                  onClick={() => rerun.mutate({ ...pageRef, proposalId: proposal.id })}
                >
                  Re-run the dry run
                </button>
              )}
            </p>
          )}
        </div>
      </div>
      <button
        type="button"
        className="link"
        aria-expanded={open}
        aria-controls={`${headingId}-changes`}
        onClick={() => setOpen((o) => !o)}
      >
        {open ? "Hide changes" : `Show ${summary ? `${changeCount} ` : ""}change${changeCount === 1 ? "" : "s"}`}
      </button>
      <div id={`${headingId}-changes`} hidden={!open}>
        {open && detail.isPending && <p className="muted">Loading changes…</p>}
        {open && detail.isError && (
          <p role="alert" className="error">
            Could not load the changes: {detail.error.message}{" "}
            <button type="button" className="small" onClick={() => void detail.refetch()}>
              Retry
            </button>
          </p>
        )}
        {open && detail.data && (
          <ChangeList
            changes={detail.data.preview.changes}
            warnings={detail.data.preview.warnings}
            selection={selectable ? selection : undefined}
            leftOut={detail.data.leftOut}
            onToggle={(i) =>
              setUnticked((s) => {
                const next = new Set(s);
                if (next.has(i)) next.delete(i);
                else next.add(i);
                return next;
              })
            }
            idPrefix={headingId}
          />
        )}
      </div>
      {(proposal.status === "applied" || proposal.status === "applied_in_part") && proposal.commandId && (
        <p className="muted">
          Applied by command <code>{proposal.commandId}</code>
        </p>
      )}
    </li>
  );
}
