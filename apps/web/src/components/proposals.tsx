"use client";

import { matchQuery, type Query, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { LIMITS } from "@mnote/contract";
import { useEffect, useMemo, useRef, useState } from "react";
import { CharactersLeft } from "./characters-left";
import { useTRPC } from "~/trpc/react";
import { type Refusal, refusalOf } from "~/trpc/refusal";
import type { DecisionAnswer, PageRef, RouterInputs, RouterOutputs } from "~/trpc/types";
import { ChangeList, countChanges, optionLabel } from "./diff-view";
import { possessive, proposalStatusText, toolLabel, whoShort, whoText } from "./labels";
import { CopyableId } from "./copyable-id";
import { RelativeTime } from "./relative-time";
import { useReview, useShownProposal } from "./review-state";
import { TellHermesButton } from "./tell-hermes";
import { LoadFailed } from "./load-failed";

type Outcome = {
  tone: "ok" | "error";
  text: string;
  /** The change record a decision wrote: one click away ("Details"), never in the sentence (issue 36). */
  commandId?: string;
  /** A rejection with a reason, of a proposal from an Ask Hermes conversation: offer to tell Hermes why. */
  tellHermes?: { sessionId: string; reason: string };
};

/** The parts of an output envelope the panel reports back to the person. */
type EnvelopeSummary = Pick<DecisionAnswer, "ok" | "result" | "audit" | "error">;

export function refusalOutcome(refusal: Refusal | null | undefined): Outcome {
  // The page moved between reading it and writing (not "decided meanwhile", the other conflict).
  if (refusal?.code === "mnote_tool_conflict" && refusal.reason === "page_moved") {
    return { tone: "error", text: "The page changed while deciding. Nothing was written: try again." };
  }
  // The contract's message names the option's key and its registry state; a person reads what it means.
  if (refusal?.code === "mnote_tool_option_unsupported") {
    return { tone: "error", text: "The editor does not support that page option yet. Nothing was written." };
  }
  return { tone: "error", text: `${plainPaths(refusal?.message ?? "The edit was refused")}. Nothing was written.` };
}

/**
 * A refusal's field path in words: "edits.0.text: at most 20000 characters" reads "the edited block's text: …".
 * The server names the field for every door; a person reads no paths (issue 36).
 */
export const plainPaths = (message: string) =>
  message.replace(/\b(?:edits|decisions)\.\d+\.(?:block\.)?([a-zA-Z]+)/g, "the edited block’s $1");

/**
 * A tool's failure envelope as a refusal. The envelope carries the contract's `{ code, message }` only, and a tool's
 * `mnote_tool_conflict` is always the contract's revision conflict (§4): the page moved.
 */
export const envelopeRefusal = (error: { code: string; message: string }): Refusal =>
  error.code === "mnote_tool_conflict" ? { ...error, reason: "page_moved" } : error;

function describeEnvelope(envelope: EnvelopeSummary, how = ""): Outcome {
  if (!envelope.ok) return refusalOutcome(envelope.error && envelopeRefusal(envelope.error));
  return {
    tone: "ok",
    text: `Applied${how}. The page shows it now.`,
    commandId: envelope.audit.commandId ?? undefined,
  };
}

/** What a decision came to, in words, with its change record one click away. */
export function OutcomeText({ outcome }: { outcome: Outcome }) {
  return (
    <>
      {outcome.text}
      {outcome.commandId && (
        <>
          {" "}
          <details className="ids">
            <summary>Details</summary>
            <CopyableId label="change record" value={outcome.commandId} />
          </details>
        </>
      )}
    </>
  );
}

/**
 * Pending cards shown open (their changes fetched) without a click; the rest open on demand. A preview
 * can be megabytes, so the list carries summaries and a card fetches its changes only when shown.
 */
const OPEN_BY_DEFAULT = 5;

/**
 * What a refresh reads again: every panel query but the details of decided proposals. A pending proposal's
 * changes are decided one by one and merged with the page as it is now (decision 0030), so its detail changes with
 * the page; a decided one's args, preview and change states never change again, and a preview can be megabytes.
 */
export function panelQueriesToRefresh(trpc: ReturnType<typeof useTRPC>) {
  const details = { queryKey: trpc.panel.proposals.get.pathKey() };
  return {
    queryKey: trpc.panel.pathKey(),
    predicate: (query: Query) => !matchQuery(details, query) || isPendingDetail(query),
  };
}

const isPendingDetail = (query: Query) => {
  const status = (query.state.data as { status?: string } | undefined)?.status;
  return status === undefined || status === "pending";
};

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
  const shown = useShownProposal(proposals.data);
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
          <OutcomeText outcome={decided} />{" "}
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
        <p className="muted">Nothing waiting for you. Agents’ suggestions appear here as they arrive.</p>
      )}
      <ol className="proposals">
        {visible.map((proposal, i) => (
          <ProposalCard
            key={proposal.id}
            proposal={proposal}
            pageRef={pageRef}
            openAtFirst={proposal.status === "pending" && (i < OPEN_BY_DEFAULT || proposal.id === shown?.id)}
            shownInPage={proposal.id === shown?.id}
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
  shownInPage,
  onDecided,
}: {
  proposal: ProposalItem;
  pageRef: PageRef;
  openAtFirst: boolean;
  /** Its changes are the suggestions in the page: marked, and brought into the panel's view. */
  shownInPage: boolean;
  onDecided: (outcome: Outcome) => void;
}) {
  const review = useReview();
  const [open, setOpen] = useState(openAtFirst);
  const detail = useProposalDetail(proposal, pageRef, open);
  const headingId = `proposal-${proposal.id}`;
  const cardRef = useRef<HTMLLIElement>(null);
  useEffect(() => {
    // Beside the page (a wide screen) the panel scrolls to the card the page shows; on a phone the panel is
    // under the page, and scrolling would pull the person away from what they are reading.
    if (shownInPage && window.matchMedia("(min-width: 1001px)").matches)
      cardRef.current?.scrollIntoView({ block: "nearest" });
  }, [shownInPage]);
  return (
    <li
      ref={cardRef}
      className={`card proposal status-${proposal.status}${shownInPage ? " shown-in-page" : ""}`}
      aria-labelledby={headingId}
      aria-current={shownInPage || undefined}
      data-shown-in-page={shownInPage || undefined}
      data-proposal-id={proposal.id}
      data-tool={proposal.toolName}
      data-tool-call-id={proposal.toolCallId ?? undefined}
    >
      <ProposalHeading proposal={proposal} headingId={headingId} shownInPage={shownInPage} />
      {proposal.status === "pending" && !shownInPage && (
        <button type="button" className="small link" onClick={() => review.choose(proposal.id)}>
          Show in the page
        </button>
      )}
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
        {open && detail.data && (
          <ProposalChanges proposal={proposal} pageRef={pageRef} detail={detail.data} idPrefix={headingId} />
        )}
      </div>
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

/**
 * A card's heading: what the suggestion does — for a revert, whose edit it takes back ("Take back Ben’s agent’s
 * edit"), never only the tool's name.
 */
export function proposalTitle(proposal: Pick<ProposalItem, "toolName" | "reverts">): string {
  if (!proposal.reverts) return toolLabel(proposal.toolName);
  return `Take back ${possessive(whoShort(proposal.reverts.by))} edit`;
}

function ProposalHeading({
  proposal,
  headingId,
  shownInPage,
}: {
  proposal: ProposalItem;
  headingId: string;
  shownInPage: boolean;
}) {
  return (
    <div className="row between">
      <h3 id={headingId}>{proposalTitle(proposal)}</h3>
      <span className="badges">
        {shownInPage && proposal.status === "pending" && (
          <span className="badge info" data-testid="shown-in-page">
            Shown in the page
          </span>
        )}
        {/* One state per card (issue 36): "held" says why it waits, so it goes once the proposal is decided. */}
        {proposal.held && proposal.status === "pending" && <span className="badge info">held for approval</span>}
        {proposal.status === "pending" && <DecidedSoFar proposal={proposal} />}
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

/** "2 of 5 decided": a pending proposal some of whose changes were decided (by anyone: the server says). */
function DecidedSoFar({ proposal }: { proposal: ProposalItem }) {
  const { applied, rejected, pending, conflict } = proposal.changeCounts;
  const decided = applied + rejected;
  return (
    <>
      {decided > 0 && (
        <span className="badge info" data-testid="decided-so-far">
          {decided} of {decided + pending} decided
        </span>
      )}
      {(conflict ?? 0) > 0 && (
        <span className="badge warn">
          {conflict} conflict{conflict === 1 ? "" : "s"}
        </span>
      )}
    </>
  );
}

/**
 * Who suggested it, where, when; for a revert, the edit it takes back. The ids (Hermes's long ones included) and the
 * page version it was made on are one click away ("Details"), for those who need them (issue 36).
 */
function ProposalMeta({ proposal }: { proposal: ProposalItem }) {
  return (
    <>
      {proposal.reverts && (
        <p className="reverts" data-testid="reverts">
          {proposal.reverts.description
            ? `That edit ${proposal.reverts.description}`
            : "That edit’s changes are listed below"}{" "}
          (<RelativeTime iso={proposal.reverts.at} />
          ).
        </p>
      )}
      <dl className="meta">
        <dt>Who</dt>
        <dd>{whoText(proposal.who)}</dd>
        {proposal.fromAsk && (
          <>
            <dt>Where</dt>
            <dd>in an Ask Hermes conversation on this page</dd>
          </>
        )}
        <dt>When</dt>
        <dd>
          <RelativeTime iso={proposal.at} />
        </dd>
      </dl>
      <details className="ids">
        <summary>Details</summary>
        {proposal.baseRevision !== null && <span>Made on page version {proposal.baseRevision}. </span>}
        <CopyableId label="user" value={proposal.actorId} /> <CopyableId label="session" value={proposal.sessionId} />{" "}
        <CopyableId label="run" value={proposal.runId} title="runId" />{" "}
        <CopyableId label="call" value={proposal.toolCallId} title="toolCallId" />{" "}
        <CopyableId label="trace" value={proposal.traceId} />{" "}
        <CopyableId label="change record" value={proposal.commandId} />
      </details>
      {proposal.status === "rejected" && proposal.reason && (
        <p className="reason" data-testid="rejection-reason">
          {proposal.decidedBy?.actorName ?? "A person"} said: “{proposal.reason}”
        </p>
      )}
      {(proposal.summary?.warnings.length ?? 0) > 0 && (
        <ul className="warnings" aria-label="Warnings">
          {proposal.summary!.warnings.map((w, i) => (
            <li key={i} className="warning">
              ⚠ {warningText(w)}
            </li>
          ))}
        </ul>
      )}
    </>
  );
}

/**
 * A planner's warning as a person reads it: an option the editor does not support yet by its label (the message
 * names its key and the code a real call fails with, for agents); any other warning as the planner wrote it.
 */
export function warningText(warning: { code: string; field?: string; message: string }): string {
  if (warning.code === "option_not_wired" && warning.field?.startsWith("options.")) {
    const label = optionLabel(warning.field.slice("options.".length));
    return `${label} is not supported by the editor yet: applying this change will be refused.`;
  }
  return warning.message;
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
        // The plan's first line says what the edit does; the rest (the page version it moves to) is for agents.
        proposal.summary?.plan[0] && <span> · {proposal.summary.plan[0]}</span>
      )}
    </p>
  );
}

/**
 * The person's decisions on one proposal, each one server step: approve (as shown), apply the kept changes,
 * apply with their edits, reject with a reason, or decide some changes (`panel.proposals.decide`, decision 0030:
 * the rest stays pending). Shared by the card and the page view.
 */
export function useDecisions(proposal: ProposalItem, pageRef: PageRef, onDone: (outcome: Outcome) => void) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const review = useReview();
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const refresh = () => queryClient.invalidateQueries(panelQueriesToRefresh(trpc));
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
      // The form closes once the rejection took; refused, it stays open with the person's words in it (issue 36).
      onSuccess: (_r, input) => {
        review.setRejecting(null);
        settle({
          tone: "ok",
          text: `Rejected “${proposalTitle(proposal)}”${input.reason ? " with your reason" : ""}. Nothing was written.`,
          ...(input.reason && proposal.fromAsk && proposal.sessionId
            ? { tellHermes: { sessionId: proposal.sessionId, reason: input.reason } }
            : {}),
        });
      },
      onError,
    }),
  );
  const decide = useMutation(
    trpc.panel.proposals.decide.mutationOptions({
      onSuccess: (answer, input) => {
        const applied = input.decisions.filter((d) => d.choice !== "reject" && d.choice !== "keep_mine").length;
        const kept = input.decisions.filter((d) => d.choice === "keep_mine").length;
        const rejected = input.decisions.length - applied - kept;
        const words = [
          applied ? `${applied} applied` : "",
          rejected ? `${rejected} rejected` : "",
          kept ? `${kept} kept as the page has ${kept === 1 ? "it" : "them"}` : "",
        ].filter(Boolean);
        const sentence = words.join(", ").replace(/^./, (first) => first.toUpperCase());
        const result: Outcome = answer.envelope
          ? answer.envelope.ok
            ? { tone: "ok", text: `${sentence}.`, commandId: answer.envelope.audit.commandId ?? undefined }
            : refusalOutcome(answer.envelope.error)
          : { tone: "ok", text: `${sentence}. Nothing was written.` };
        // The proposal may stay pending (other changes wait): the outcome stays with it.
        if (answer.proposal && answer.proposal.status !== "pending" && result.tone === "ok") onDone(result);
        else setOutcome(result);
        void refresh();
      },
      onError,
    }),
  );
  const busy =
    approve.isPending || reject.isPending || decide.isPending || applyPart.isPending || applyEdited.isPending;
  const leftOut = review.leftOut(proposal.id);
  const edits = review.edits(proposal.id);
  return {
    outcome,
    busy,
    leftOut,
    edits,
    /** Apply what the person chose of the undecided changes: all as shown, the kept ones, or with their edits. */
    apply: (undecided: readonly number[]) => {
      const keep = undecided.filter((i) => !leftOut.has(i));
      const cut = keep.length < undecided.length;
      if (edits.size > 0) {
        applyEdited.mutate({ ...ref, edits: [...edits.values()], ...(cut ? { keep } : {}) });
      } else if (cut) applyPart.mutate({ ...ref, keep });
      else approve.mutate(ref);
    },
    /** Decide some changes now (decision 0030); the others stay pending. */
    decide: (decisions: RouterInputs["panel"]["proposals"]["decide"]["decisions"]) =>
      decide.mutate({ ...ref, decisions }),
    approve: () => approve.mutate(ref),
    reject: (reason: string) => reject.mutate({ ...ref, ...(reason.trim() ? { reason: reason.trim() } : {}) }),
  };
}

/** The sticky bar on top of a card: the summary, then Approve / Apply … / Reject (with a reason). */
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
  // What Apply decides: the changes still waiting and not in conflict (a conflict is resolved on its own).
  const undecided = detail
    ? detail.changes.flatMap((c) => (c.state === "pending" ? [c.index] : []))
    : Array.from({ length: changeCount }, (_, i) => i);
  const someDecided = detail ? undecided.length < changeCount : false;
  const kept = undecided.filter((i) => !leftOut.has(i)).length;
  const cut = kept < undecided.length;
  const rejecting = review.rejecting === proposal.id;
  const rejectButton = useRef<HTMLButtonElement>(null);
  return (
    <div className="review-bar" data-testid="review-bar">
      <ChangeSummary proposal={proposal} detail={detail} />
      {proposal.status === "pending" && proposal.decidable && !rejecting && (
        <div className="row actions">
          <button
            type="button"
            className="primary"
            data-testid="apply"
            disabled={busy || kept === 0}
            onClick={() => decisions.apply(undecided)}
          >
            {edits.size > 0
              ? `Apply with your edits${cut ? ` (${kept} of ${undecided.length} changes)` : ""}`
              : cut
                ? `Apply ${kept} of ${undecided.length} changes`
                : someDecided
                  ? `Apply the ${kept} undecided`
                  : "Approve"}
          </button>
          <button ref={rejectButton} type="button" disabled={busy} onClick={() => review.setRejecting(proposal.id)}>
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
          agentReads={proposal.holder === "agent"}
          onCancel={() => review.setRejecting(null)}
          onReject={(reason) => decisions.reject(reason)}
          onClosedFocus={() => rejectButton.current?.focus({ preventScroll: true })}
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
            <OutcomeText outcome={decisions.outcome} />
          </p>
        )}
      </div>
    </div>
  );
}

/**
 * Reject, with an optional reason. On an agent's suggestion the agent reads it on its next try; on a person's own
 * (a revert) it is kept in the history only — the label says which. The box counts down to the contract's limit and
 * refuses past it before sending; a refusal from the server leaves the typed reason in place (issue 36).
 */
function RejectForm({
  busy,
  agentReads,
  onReject,
  onCancel,
  onClosedFocus,
}: {
  busy: boolean;
  agentReads: boolean;
  onReject: (reason: string) => void;
  onCancel: () => void;
  /** Where the focus goes when the box closes and the place it was opened from is gone. */
  onClosedFocus: () => void;
}) {
  const [reason, setReason] = useState("");
  const [tried, setTried] = useState(false);
  const textRef = useRef<HTMLTextAreaElement>(null);
  const fallback = useRef(onClosedFocus);
  fallback.current = onClosedFocus;
  useEffect(() => {
    // Where the person was when the box opened (a change in the page after `r`, or the Reject button).
    const before = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    textRef.current?.focus();
    return () => {
      // Closed (Escape, Cancel): the focus goes back there, not to <body>, so the review keys and Tab go on from
      // where the person was (issue 36). A decision that moved the focus elsewhere keeps it there.
      requestAnimationFrame(() => {
        if (document.activeElement && document.activeElement !== document.body) return;
        if (before && before !== document.body && before.isConnected) before.focus({ preventScroll: true });
        else fallback.current();
      });
    };
  }, []);
  const limit = LIMITS.rejectionReasonLength;
  // The server trims the reason before its limit applies: the count does the same.
  const over = reason.trim().length - limit;
  return (
    <form
      className="reject-form"
      aria-label="Reject this proposal"
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        setTried(true);
        if (over > 0) textRef.current?.focus();
        else onReject(reason);
      }}
      onKeyDown={(event) => {
        if (event.key === "Escape") {
          event.preventDefault();
          onCancel();
        }
      }}
    >
      <label htmlFor="reject-reason">
        {agentReads ? "Why? (optional — the agent reads it on its next try)" : "Why? (optional — kept in the history)"}
      </label>
      <textarea
        id="reject-reason"
        ref={textRef}
        rows={2}
        value={reason}
        aria-invalid={over > 0 || undefined}
        aria-describedby="reject-reason-count"
        onChange={(e) => setReason(e.target.value)}
      />
      <CharactersLeft id="reject-reason-count" used={reason.trim().length} limit={limit} announce={tried} />
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
  pageRef,
  detail,
  idPrefix,
}: {
  proposal: ProposalItem;
  pageRef: PageRef;
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
  const decisions = useDecisions(proposal, pageRef, () => undefined);
  return (
    <>
      <ChangeList
        changes={detail.preview.changes}
        warnings={detail.preview.warnings}
        selection={proposal.partiallyApplicable ? selection : undefined}
        leftOut={detail.leftOut}
        edits={review.edits(proposal.id)}
        follow={follow}
        onFocusChange={(change) => review.setCurrent({ proposalId: proposal.id, change }, "list")}
        onToggle={(change) => review.setLeftOut({ proposalId: proposal.id, change })}
        states={detail.changes}
        onDecide={(index, choice) => decisions.decide([{ index, choice }])}
        idPrefix={idPrefix}
      />
      {decisions.outcome && (
        <p
          role={decisions.outcome.tone === "error" ? "alert" : "status"}
          className={`notice ${decisions.outcome.tone}`}
        >
          <OutcomeText outcome={decisions.outcome} />
        </p>
      )}
    </>
  );
}
