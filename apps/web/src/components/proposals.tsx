"use client";

import type { AppRouter } from "@mnote/tools";
import type { inferRouterOutputs } from "@trpc/server";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useTRPC } from "~/trpc/react";
import { ChangeList } from "./diff-view";
import { formatTime, proposalStatusText, toolLabel, whoText } from "./labels";

type PageRef = { workspaceId: string; documentId: string };
type Outcome = { tone: "ok" | "error"; text: string; offerRerun?: boolean };

/** The parts of an output envelope the panel reports back to the person. */
type EnvelopeSummary = { ok: boolean; result?: unknown; audit: { commandId: string | null }; error: { code: string; message: string } | null };

function describeEnvelope(envelope: EnvelopeSummary): Outcome {
  if (envelope.ok) {
    const revision = (envelope.result as { revision?: number } | null)?.revision;
    return { tone: "ok", text: `Applied as command ${envelope.audit.commandId}${revision ? ` (revision ${revision})` : ""}.` };
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
export const isProposalDetail = (queryKey: readonly unknown[]) => JSON.stringify(queryKey).includes('"proposals","get"');

/** Every proposal on the page; pending ones are what a person has to decide on. */
export function Proposals({ pageRef }: { pageRef: PageRef }) {
  const trpc = useTRPC();
  const [showDecided, setShowDecided] = useState(false);
  const proposals = useQuery(trpc.panel.proposals.list.queryOptions(pageRef));
  if (proposals.isPending) return <p className="muted">Loading proposals…</p>;
  if (proposals.isError) return <p role="alert" className="error">Could not load proposals: {proposals.error.message}</p>;
  const visible = proposals.data.filter((p) => showDecided || p.status === "pending");
  return (
    <div>
      <div className="row between">
        <p className="muted" aria-live="polite">
          {proposals.data.filter((p) => p.status === "pending").length} pending
        </p>
        <label className="inline">
          <input type="checkbox" checked={showDecided} onChange={(e) => setShowDecided(e.target.checked)} /> Show applied and rejected
        </label>
      </div>
      {visible.length === 0 && <p className="muted">Nothing waiting for you. Dry runs from agents appear here as they happen.</p>}
      <ol className="proposals">
        {visible.map((proposal, i) => (
          <ProposalCard
            key={proposal.id}
            proposal={proposal}
            pageRef={pageRef}
            openAtFirst={proposal.status === "pending" && i < OPEN_BY_DEFAULT}
          />
        ))}
      </ol>
    </div>
  );
}

type ProposalItem = inferRouterOutputs<AppRouter>["panel"]["proposals"]["list"][number];

function ProposalCard({ proposal, pageRef, openAtFirst }: { proposal: ProposalItem; pageRef: PageRef; openAtFirst: boolean }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [open, setOpen] = useState(openAtFirst);
  // The full preview (every change) is fetched when the card is shown open, never with the list.
  const detail = useQuery(trpc.panel.proposals.get.queryOptions({ ...pageRef, proposalId: proposal.id }, { enabled: open, staleTime: Infinity }));
  const summary = proposal.summary;
  const changeCount = summary?.changeCount ?? detail.data?.preview.changes.length ?? 0;
  const warnings = summary?.warnings ?? detail.data?.preview.warnings ?? [];
  // The server says whether this proposal can be cut change by change (tool, status, stale, the person's rights).
  const selectable = proposal.partiallyApplicable;
  // Changes the person unticked; everything else is kept.
  const [unticked, setUnticked] = useState(() => new Set<number>());
  const keep = Array.from({ length: changeCount }, (_, i) => i).filter((i) => !unticked.has(i));
  const selection = new Set(keep);
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.panel.pathKey(), predicate: (q) => !isProposalDetail(q.queryKey) });
  const onError = (error: { message: string }) => setOutcome({ tone: "error", text: error.message });

  const approve = useMutation(trpc.panel.proposals.approve.mutationOptions({ onSuccess: (envelope) => { setOutcome(describeEnvelope(envelope)); void refresh(); }, onError }));
  const reject = useMutation(trpc.panel.proposals.reject.mutationOptions({ onSuccess: () => { setOutcome({ tone: "ok", text: "Rejected. Nothing was written." }); void refresh(); }, onError }));
  const rerun = useMutation(trpc.panel.proposals.rerun.mutationOptions({ onSuccess: (r) => { setOutcome(r.envelope.ok ? { tone: "ok", text: "Dry run computed again on the current page: review the new proposal." } : describeEnvelope(r.envelope)); void refresh(); }, onError }));
  // One server step: the kept changes are written and the proposal is marked applied in part, or nothing happens.
  const applyPart = useMutation(trpc.panel.proposals.applyPart.mutationOptions({ onSuccess: (envelope) => { setOutcome(describeEnvelope(envelope)); void refresh(); }, onError }));
  const busy = approve.isPending || reject.isPending || rerun.isPending || applyPart.isPending;
  const partial = selectable && unticked.size > 0;
  const headingId = `proposal-${proposal.id}`;

  return (
    <li className={`card proposal status-${proposal.status}`} aria-labelledby={headingId} data-proposal-id={proposal.id} data-tool={proposal.toolName}>
      <div className="row between">
        <h3 id={headingId}>{toolLabel(proposal.toolName)}</h3>
        <span className="badges">
          {proposal.held && <span className="badge info">held for approval</span>}
          {proposal.stale && <span className="badge warn">stale: page changed</span>}
          {proposal.status !== "pending" && <span className={`badge ${proposal.status === "rejected" ? "muted-badge" : "ok"}`}>{proposalStatusText(proposal)}</span>}
        </span>
      </div>
      <dl className="meta">
        <dt>Who</dt>
        <dd>
          {whoText(proposal.who)} <code>{proposal.actorId}</code>
        </dd>
        <dt>Run</dt>
        <dd>
          <code title="sessionId">{proposal.sessionId}</code> · <code title="runId">{proposal.runId}</code> · <code title="toolCallId">{proposal.toolCallId}</code>
        </dd>
        <dt>When</dt>
        <dd>{formatTime(proposal.at)}</dd>
        <dt>Base revision</dt>
        <dd>{proposal.baseRevision}</dd>
        {summary && (
          <>
            <dt>Changes</dt>
            <dd>{summary.plan.join("; ")}</dd>
          </>
        )}
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
      <button type="button" className="link" aria-expanded={open} aria-controls={`${headingId}-changes`} onClick={() => setOpen((o) => !o)}>
        {open ? "Hide changes" : `Show ${summary ? `${changeCount} ` : ""}change${changeCount === 1 ? "" : "s"}`}
      </button>
      <div id={`${headingId}-changes`} hidden={!open}>
        {open && detail.isPending && <p className="muted">Loading changes…</p>}
        {open && detail.isError && <p role="alert" className="error">Could not load the changes: {detail.error.message}</p>}
        {open && detail.data && (
          <ChangeList
            changes={detail.data.preview.changes}
            warnings={detail.data.preview.warnings}
            selection={selectable ? selection : undefined}
            onToggle={(i) => setUnticked((s) => { const next = new Set(s); if (next.has(i)) next.delete(i); else next.add(i); return next; })}
            idPrefix={headingId}
          />
        )}
      </div>
      {(proposal.status === "applied" || proposal.status === "applied_in_part") && proposal.commandId && (
        <p className="muted">
          Applied by command <code>{proposal.commandId}</code>
        </p>
      )}
      {proposal.status === "pending" && proposal.decidable && (
        <div className="row actions">
          {proposal.stale ? (
            <button type="button" className="primary" disabled={busy} onClick={() => rerun.mutate({ ...pageRef, proposalId: proposal.id })}>
              Re-run dry run
            </button>
          ) : partial ? (
            <button type="button" className="primary" disabled={busy || keep.length === 0} onClick={() => applyPart.mutate({ ...pageRef, proposalId: proposal.id, keep })}>
              Apply {keep.length} of {changeCount} changes
            </button>
          ) : (
            <button type="button" className="primary" disabled={busy} onClick={() => approve.mutate({ ...pageRef, proposalId: proposal.id })}>
              Approve
            </button>
          )}
          <button type="button" disabled={busy} onClick={() => reject.mutate({ ...pageRef, proposalId: proposal.id })}>
            Reject
          </button>
        </div>
      )}
      {proposal.status === "pending" && !proposal.decidable && <p className="muted">You can read this page but not approve edits on it.</p>}
      <div aria-live="polite">
        {outcome && (
          <p className={outcome.tone === "ok" ? "notice ok" : "notice error"} role={outcome.tone === "error" ? "alert" : "status"}>
            {outcome.text}{" "}
            {outcome.offerRerun && (
              <button type="button" className="link" disabled={busy} onClick={() => rerun.mutate({ ...pageRef, proposalId: proposal.id })}>
                Re-run the dry run
              </button>
            )}
          </p>
        )}
      </div>
    </li>
  );
}
