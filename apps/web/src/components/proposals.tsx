"use client";

import type { RefusalReason } from "@mnote/tools";
import { matchQuery, type Query, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useMemo, useRef, useState } from "react";
import { useTRPC } from "~/trpc/react";
import type { DecisionAnswer, PageRef, RouterOutputs } from "~/trpc/types";
import { ChangeList, countChanges } from "./diff-view";
import { proposalStatusText, toolLabel, whoText } from "./labels";
import { CopyableId } from "./copyable-id";
import { RelativeTime } from "./relative-time";
import { useReview } from "./review-state";
import { TellHermesButton } from "./tell-hermes";
import { LoadFailed } from "./load-failed";

type Outcome = {
  tone: "ok" | "error";
  text: string;
  offerRerun?: boolean;
  /** A rejection with a reason, of a proposal from an Ask Hermes conversation: offer to tell Hermes why. */
  tellHermes?: { sessionId: string; reason: string };
};

/** The parts of an output envelope the panel reports back to the person. */
type EnvelopeSummary = Pick<DecisionAnswer, "ok" | "result" | "audit" | "error">;

/**
 * A refusal as the AppError mapping gives it (packages/tools `AppError`): a decision's tRPC error carries it as
 * `data.appError`, a tool's failure envelope as `error`. The one way the panel says a refused decision, whichever
 * door it came by: the contract's message, and a page that moved offers to re-run the dry run. The panel tells
 * refusals apart by `code` and `reason`, never by their words.
 */
export type Refusal = { code: string; message: string; reason?: RefusalReason };

export function refusalOutcome(refusal: Refusal | null | undefined): Outcome {
  // The page moved past the proposal's base revision (not "decided meanwhile", the other conflict).
  if (refusal?.code === "mnote_tool_conflict" && refusal.reason === "page_moved") {
    return { tone: "error", text: "The page changed since this proposal. Nothing was written.", offerRerun: true };
  }
  return { tone: "error", text: `${refusal?.message ?? "The edit was refused"}. Nothing was written.` };
}

/** A procedure's error as its AppError (the router's `errorFormatter` puts it in `data.appError`). */
export const refusalOf = (error: { message: string; data?: { appError?: Refusal } | null }): Refusal =>
  error.data?.appError ?? { code: "mnote_tool_unavailable", message: error.message };

/**
 * A tool's failure envelope as a refusal. The envelope carries the contract's `{ code, message }` only, and a tool's
 * `mnote_tool_conflict` is always the contract's revision conflict (§4): the page moved.
 */
export const envelopeRefusal = (error: { code: string; message: string }): Refusal =>
  error.code === "mnote_tool_conflict" ? { ...error, reason: "page_moved" } : error;

function describeEnvelope(envelope: EnvelopeSummary, how = ""): Outcome {
  if (!envelope.ok) return refusalOutcome(envelope.error && envelopeRefusal(envelope.error));
  const revision = (envelope.result as { revision?: number } | null)?.revision;
  return {
    tone: "ok",
    text: `Applied${how} as command ${envelope.audit.commandId}${revision ? ` (revision ${revision})` : ""}.`,
  };
}

/**
 * Pending cards shown open (their changes fetched) without a click; the rest open on demand. A preview
 * can be megabytes, so the list carries summaries and a card fetches its changes only when shown.
 */
const OPEN_BY_DEFAULT = 5;

/**
 * A proposal's args and preview never change (its status lives in the list): refreshes leave them cached.
 * The filter for "every panel query but the proposal details", by tRPC's query key for the procedure.
 */
export function panelQueriesButDetails(trpc: ReturnType<typeof useTRPC>) {
  const details = { queryKey: trpc.panel.proposals.get.pathKey() };
  return {
    queryKey: trpc.panel.pathKey(),
    predicate: (query: Query) => !matchQuery(details, query),
  };
}

export type ProposalItem = RouterOutputs["panel"]["proposals"]["list"][number];

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
  if (proposals.isError) return <LoadFailed what="proposals" query={proposals} />;
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
          {decided.tellHermes && (
            <TellHermesButton
              pageRef={pageRef}
              sessionId={decided.tellHermes.sessionId}
              reason={decided.tellHermes.reason}
            />
          )}{" "}
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

/** One proposal: who and what, the review bar with the decisions, and its changes. */
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
  const [open, setOpen] = useState(openAtFirst);
  const detail = useProposalDetail(proposal, pageRef, open);
  const headingId = `proposal-${proposal.id}`;
  return (
    <li
      className={`card proposal status-${proposal.status}`}
      aria-labelledby={headingId}
      data-proposal-id={proposal.id}
      data-tool={proposal.toolName}
      data-tool-call-id={proposal.toolCallId ?? undefined}
    >
      <ProposalHeading proposal={proposal} headingId={headingId} />
      <ProposalMeta proposal={proposal} />
      <ReviewBar proposal={proposal} pageRef={pageRef} detail={detail.data} open={open} onDecided={onDecided} />
      <button
        type="button"
        className="link"
        aria-expanded={open}
        aria-controls={`${headingId}-changes`}
        onClick={() => setOpen((o) => !o)}
      >
        {open
          ? "Hide changes"
          : `Show ${changeCountOf(proposal, detail.data)} change${changeCountOf(proposal, detail.data) === 1 ? "" : "s"}`}
      </button>
      <div id={`${headingId}-changes`} hidden={!open}>
        {open && detail.isPending && <p className="muted">Loading changes…</p>}
        {open && detail.isError && <LoadFailed what="the changes" query={detail} />}
        {open && detail.data && <ProposalChanges proposal={proposal} detail={detail.data} idPrefix={headingId} />}
      </div>
      {proposal.status.startsWith("applied") && proposal.commandId && (
        <p className="muted">
          Applied by command <code>{proposal.commandId}</code>
        </p>
      )}
    </li>
  );
}

type ProposalDetail = RouterOutputs["panel"]["proposals"]["get"];

/**
 * The full preview (every change), fetched when the card is shown open, never with the list. The changes
 * never change, but a decision fills in which were left out: a cached detail from before it is refreshed.
 */
export function useProposalDetail(proposal: ProposalItem, pageRef: PageRef, enabled: boolean) {
  const trpc = useTRPC();
  const detail = useQuery(
    trpc.panel.proposals.get.queryOptions({ ...pageRef, proposalId: proposal.id }, { enabled, staleTime: Infinity }),
  );
  const detailStatus = detail.data?.status;
  const refetchDetail = detail.refetch;
  useEffect(() => {
    if (detailStatus !== undefined && detailStatus !== proposal.status) void refetchDetail();
  }, [detailStatus, proposal.status, refetchDetail]);
  return detail;
}

const changeCountOf = (proposal: ProposalItem, detail?: ProposalDetail) =>
  proposal.summary?.changeCount ?? detail?.preview.changes.length ?? 0;

function ProposalHeading({ proposal, headingId }: { proposal: ProposalItem; headingId: string }) {
  return (
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
  );
}

/** Who proposed it, in which conversation, when; the raw ids (Hermes's long ones included) behind a toggle. */
function ProposalMeta({ proposal }: { proposal: ProposalItem }) {
  return (
    <>
      <dl className="meta">
        <dt>Who</dt>
        <dd>{whoText(proposal.who)}</dd>
        <dt>From</dt>
        <dd>
          {proposal.fromAsk ? "an Ask Hermes conversation on this page" : "an agent's session"}{" "}
          <details className="ids">
            <summary>ids</summary>
            <CopyableId label="user" value={proposal.actorId} />{" "}
            <CopyableId label="session" value={proposal.sessionId} />{" "}
            <CopyableId label="run" value={proposal.runId} title="runId" />{" "}
            <CopyableId label="call" value={proposal.toolCallId} title="toolCallId" />{" "}
            <CopyableId label="trace" value={proposal.traceId} />
          </details>
        </dd>
        <dt>When</dt>
        <dd>
          <RelativeTime iso={proposal.at} />
        </dd>
        <dt>Base revision</dt>
        <dd>{proposal.baseRevision}</dd>
      </dl>
      {proposal.status === "rejected" && proposal.reason && (
        <p className="reason" data-testid="rejection-reason">
          {proposal.decidedBy?.actorName ?? "A person"} said: “{proposal.reason}”
        </p>
      )}
      {(proposal.summary?.warnings.length ?? 0) > 0 && (
        <ul className="warnings" aria-label="Warnings">
          {proposal.summary!.warnings.map((w, i) => (
            <li key={i} className="warning">
              ⚠ {w.message}
            </li>
          ))}
        </ul>
      )}
    </>
  );
}

/** "4 changes · 1 inserted · 2 changed · title": what a proposal does, before its changes are read. */
function ChangeSummary({ proposal, detail }: { proposal: ProposalItem; detail?: ProposalDetail }) {
  const counts = useMemo(() => (detail ? countChanges(detail.preview.changes) : null), [detail]);
  const changeCount = changeCountOf(proposal, detail);
  return (
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
        proposal.summary && <span> · {proposal.summary.plan.join("; ")}</span>
      )}
    </p>
  );
}

/**
 * The person's decisions on one proposal, each one server step: approve (as shown), apply the kept changes,
 * apply with their edits, reject with a reason, re-run a stale one. Shared by the card and the page view.
 */
export function useDecisions(proposal: ProposalItem, pageRef: PageRef, onDone: (outcome: Outcome) => void) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const review = useReview();
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const refresh = () => queryClient.invalidateQueries(panelQueriesButDetails(trpc));
  const onError = (error: Parameters<typeof refusalOf>[0]) => setOutcome(refusalOutcome(refusalOf(error)));
  // A decision that took leaves the card behind (the list shows pending ones): the list keeps saying what happened.
  const settle = (result: Outcome) => {
    if (result.tone === "ok") onDone(result);
    else setOutcome(result);
    void refresh();
  };
  const ref = { ...pageRef, proposalId: proposal.id };
  const approve = useMutation(
    trpc.panel.proposals.approve.mutationOptions({ onSuccess: (e) => settle(describeEnvelope(e)), onError }),
  );
  const applyPart = useMutation(
    trpc.panel.proposals.applyPart.mutationOptions({
      onSuccess: (e, input) =>
        settle(
          describeEnvelope(
            e,
            ` in part (${input.keep.length} of ${proposal.summary?.changeCount ?? input.keep.length} changes)`,
          ),
        ),
      onError,
    }),
  );
  const applyEdited = useMutation(
    trpc.panel.proposals.applyEdited.mutationOptions({
      onSuccess: (e) => settle(describeEnvelope(e, " with your edits")),
      onError,
    }),
  );
  const reject = useMutation(
    trpc.panel.proposals.reject.mutationOptions({
      onSuccess: (_r, input) =>
        settle({
          tone: "ok",
          text: `Rejected “${toolLabel(proposal.toolName)}”${input.reason ? " with your reason" : ""}. Nothing was written.`,
          ...(input.reason && proposal.fromAsk && proposal.sessionId
            ? { tellHermes: { sessionId: proposal.sessionId, reason: input.reason } }
            : {}),
        }),
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
  const busy = approve.isPending || reject.isPending || rerun.isPending || applyPart.isPending || applyEdited.isPending;
  const leftOut = review.leftOut(proposal.id);
  const edits = review.edits(proposal.id);
  return {
    outcome,
    busy,
    leftOut,
    edits,
    /** Apply what the person chose: everything as shown, the kept changes, or with their edits. */
    apply: (changeCount: number) => {
      const keep = Array.from({ length: changeCount }, (_, i) => i).filter((i) => !leftOut.has(i));
      if (edits.size > 0) {
        applyEdited.mutate({ ...ref, edits: [...edits.values()], ...(leftOut.size > 0 ? { keep } : {}) });
      } else if (leftOut.size > 0) applyPart.mutate({ ...ref, keep });
      else approve.mutate(ref);
    },
    approve: () => approve.mutate(ref),
    reject: (reason: string) => reject.mutate({ ...ref, ...(reason.trim() ? { reason: reason.trim() } : {}) }),
    rerun: () => rerun.mutate(ref),
  };
}

/** The sticky bar on top of a card: the summary, then Approve / Apply … / Reject (with a reason), or Re-run. */
function ReviewBar({
  proposal,
  pageRef,
  detail,
  open,
  onDecided,
}: {
  proposal: ProposalItem;
  pageRef: PageRef;
  detail?: ProposalDetail;
  open: boolean;
  onDecided: (outcome: Outcome) => void;
}) {
  const review = useReview();
  const decisions = useDecisions(proposal, pageRef, onDecided);
  const { busy, leftOut, edits } = decisions;
  const changeCount = changeCountOf(proposal, detail);
  const kept = changeCount - leftOut.size;
  const rejecting = review.rejecting === proposal.id;
  return (
    <div className="review-bar" data-testid="review-bar">
      <ChangeSummary proposal={proposal} detail={detail} />
      {proposal.status === "pending" && proposal.decidable && !rejecting && (
        <div className="row actions">
          {proposal.stale ? (
            <button type="button" className="primary" disabled={busy} onClick={decisions.rerun}>
              Re-run dry run
            </button>
          ) : (
            <button
              type="button"
              className="primary"
              data-testid="apply"
              disabled={busy || kept === 0}
              onClick={() => decisions.apply(changeCount)}
            >
              {edits.size > 0
                ? `Apply with your edits${leftOut.size > 0 ? ` (${kept} of ${changeCount} changes)` : ""}`
                : leftOut.size > 0
                  ? `Apply ${kept} of ${changeCount} changes`
                  : "Approve"}
            </button>
          )}
          <button type="button" disabled={busy} onClick={() => review.setRejecting(proposal.id)}>
            Reject
          </button>
          {proposal.partiallyApplicable && open && changeCount > 1 && (
            <span className="row select-some" role="group" aria-label="Select changes">
              <button
                type="button"
                className="small"
                disabled={leftOut.size === 0}
                onClick={() => review.setAllLeftOut(proposal.id, [])}
              >
                Select all
              </button>
              <button
                type="button"
                className="small"
                disabled={kept === 0}
                onClick={() =>
                  review.setAllLeftOut(
                    proposal.id,
                    Array.from({ length: changeCount }, (_, i) => i),
                  )
                }
              >
                Select none
              </button>
            </span>
          )}
        </div>
      )}
      {rejecting && (
        <RejectForm
          busy={busy}
          onCancel={() => review.setRejecting(null)}
          onReject={(reason) => {
            decisions.reject(reason);
            review.setRejecting(null);
          }}
        />
      )}
      {proposal.status === "pending" && !proposal.decidable && (
        <p className="muted">You can read this page but not approve edits on it.</p>
      )}
      <div aria-live="polite">
        {decisions.outcome && (
          <p
            className={decisions.outcome.tone === "ok" ? "notice ok" : "notice error"}
            role={decisions.outcome.tone === "error" ? "alert" : "status"}
          >
            {decisions.outcome.text}{" "}
            {decisions.outcome.offerRerun && (
              <button type="button" className="link" disabled={busy} onClick={decisions.rerun}>
                Re-run the dry run
              </button>
            )}
          </p>
        )}
      </div>
    </div>
  );
}

/** Reject, with an optional reason the agent reads on its retry (the server caps it at 500 characters). */
function RejectForm({
  busy,
  onReject,
  onCancel,
}: {
  busy: boolean;
  onReject: (reason: string) => void;
  onCancel: () => void;
}) {
  const [reason, setReason] = useState("");
  const textRef = useRef<HTMLTextAreaElement>(null);
  useEffect(() => textRef.current?.focus(), []);
  return (
    <form
      className="reject-form"
      aria-label="Reject this proposal"
      onSubmit={(event) => {
        event.preventDefault();
        onReject(reason);
      }}
      onKeyDown={(event) => {
        if (event.key === "Escape") {
          event.preventDefault();
          onCancel();
        }
      }}
    >
      <label htmlFor="reject-reason">Why? (optional — the agent reads it)</label>
      <textarea id="reject-reason" ref={textRef} rows={2} value={reason} onChange={(e) => setReason(e.target.value)} />
      <div className="row">
        <button type="submit" className="primary" disabled={busy}>
          Reject
        </button>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}

/** The changes of an open card, in step with the page: the selection and edits are the page's review state. */
function ProposalChanges({
  proposal,
  detail,
  idPrefix,
}: {
  proposal: ProposalItem;
  detail: ProposalDetail;
  idPrefix: string;
}) {
  const review = useReview();
  const leftOut = review.leftOut(proposal.id);
  const changeCount = detail.preview.changes.length;
  const selection = useMemo(
    () => new Set(Array.from({ length: changeCount }, (_, i) => i).filter((i) => !leftOut.has(i))),
    [changeCount, leftOut],
  );
  const follow =
    review.current?.proposalId === proposal.id && review.currentFrom !== "list" ? review.current.change : null;
  return (
    <ChangeList
      changes={detail.preview.changes}
      warnings={detail.preview.warnings}
      selection={proposal.partiallyApplicable ? selection : undefined}
      leftOut={detail.leftOut}
      edits={review.edits(proposal.id)}
      follow={follow}
      onFocusChange={(change) => review.setCurrent({ proposalId: proposal.id, change }, "list")}
      onToggle={(change) => review.setLeftOut({ proposalId: proposal.id, change })}
      idPrefix={idPrefix}
    />
  );
}
