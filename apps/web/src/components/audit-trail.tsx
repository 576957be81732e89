"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useMemo, useState } from "react";
import { useTRPC } from "~/trpc/react";
import type { PageRef, RouterOutputs } from "~/trpc/types";
import { CopyableId } from "./copyable-id";
import { outcomeText, possessive, toolLabel, whoShort, whoText } from "./labels";
import { RelativeTime } from "./relative-time";
import { LoadFailed } from "./load-failed";
import { refusalOf } from "~/trpc/refusal";
import { refusalOutcome } from "./proposals";

type AuditRow = RouterOutputs["panel"]["audit"]["list"][number];
type Who = AuditRow["who"];

/**
 * What a person may narrow the history to (issue 36): everything, the writes that changed the page, the suggestions
 * and the decisions on them, or what was refused. Reads are folded away apart from these.
 */
const WHAT = {
  all: "Everything",
  changes: "Changes to the page",
  suggestions: "Suggestions and decisions",
  refusals: "Refusals and failures",
} as const;
type What = keyof typeof WHAT;

/** Which of WHAT a record is: the one place the history sorts records. */
export function recordKind(record: AuditRow): "read" | Exclude<What, "all"> {
  if (record.effect === "read" && record.outcome === "ok") return "read";
  if (record.effect === "write" && (record.outcome === "ok" || record.outcome === "replayed")) return "changes";
  if (record.outcome === "proposal" || record.outcome === "held_for_approval" || record.outcome === "rejected")
    return "suggestions";
  if (record.decision || askedAgain(record)) return "suggestions";
  return "refusals";
}

/** An agent's repeat of its held call: answered with where the suggestion stood, not refused (decision 0006). */
const askedAgain = (record: AuditRow) =>
  record.who.holder === "agent" &&
  record.outcome !== "held_for_approval" &&
  (record.errorCode === "mnote_tool_rejected" || record.errorCode === "mnote_tool_approval_required");

/** The key a record's "who" is filtered by: the person, and whether it was their agent. */
const whoKey = (who: Who) => `${who.holder ?? "none"}:${who.actorId}`;

/**
 * Every call on this page, newest first, each as a sentence ("Ben’s agent inserted 'Alpha line' — approved by Ada"),
 * filterable by who and what, with reads folded away until asked for. Ids (run, call, trace, change record) are one
 * click away in each entry's Details, never in its first line (issue 36).
 */
export function AuditTrail({ pageRef, onReverted }: { pageRef: PageRef; onReverted: () => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [ids, setIds] = useState<{ runId?: string; traceId?: string }>({});
  const [who, setWho] = useState("");
  const [what, setWhat] = useState<What>("all");
  const [showReads, setShowReads] = useState(false);
  const [notice, setNotice] = useState<{ tone: "ok" | "error"; text: string } | null>(null);
  const audit = useQuery(trpc.panel.audit.list.queryOptions({ ...pageRef, ...ids }));
  const revert = useMutation(
    trpc.panel.page.revert.mutationOptions({
      onSuccess: ({ envelope }) => {
        setNotice(
          envelope.ok
            ? { tone: "ok", text: "Suggested taking it back: review it under Suggestions." }
            : refusalOutcome(envelope.error),
        );
        void queryClient.invalidateQueries({ queryKey: trpc.panel.pathKey() });
        if (envelope.ok) onReverted();
      },
      onError: (error) => setNotice(refusalOutcome(refusalOf(error))),
    }),
  );
  // The server builds the revert call (ids, key, base revision); the panel names the command only.
  const proposeRevert = (commandId: string) => revert.mutate({ ...pageRef, commandId });

  const records = useMemo(() => audit.data ?? [], [audit.data]);
  const people = useMemo(() => {
    const seen = new Map<string, string>();
    for (const record of records) seen.set(whoKey(record.who), whoText(record.who));
    return [...seen].sort((a, b) => a[1].localeCompare(b[1]));
  }, [records]);
  const matching = records.filter(
    (record) => (!who || whoKey(record.who) === who) && (what === "all" || recordKind(record) === what),
  );
  const reads = matching.filter((record) => recordKind(record) === "read").length;
  const shown = showReads ? matching : matching.filter((record) => recordKind(record) !== "read");
  const filtered = Boolean(who || what !== "all" || ids.runId || ids.traceId);

  return (
    <div>
      <form className="row filters" onSubmit={(e) => e.preventDefault()} aria-label="Filter the history">
        <label htmlFor="filter-who">Who</label>
        <select id="filter-who" value={who} onChange={(e) => setWho(e.target.value)}>
          <option value="">Anyone</option>
          {people.map(([key, name]) => (
            <option key={key} value={key}>
              {name}
            </option>
          ))}
        </select>
        <label htmlFor="filter-what">What</label>
        <select id="filter-what" value={what} onChange={(e) => setWhat(e.target.value as What)}>
          {Object.entries(WHAT).map(([key, words]) => (
            <option key={key} value={key}>
              {words}
            </option>
          ))}
        </select>
        <label className="inline">
          <input type="checkbox" checked={showReads} onChange={(e) => setShowReads(e.target.checked)} /> Show reads
          {!showReads && reads > 0 ? ` (${reads} hidden)` : ""}
        </label>
        <details className="id-filters">
          <summary>Filter by ids</summary>
          <label htmlFor="filter-run">Run</label>
          <input
            id="filter-run"
            value={ids.runId ?? ""}
            onChange={(e) => setIds((f) => ({ ...f, runId: e.target.value || undefined }))}
            placeholder="runId"
          />
          <label htmlFor="filter-trace">Trace</label>
          <input
            id="filter-trace"
            value={ids.traceId ?? ""}
            onChange={(e) => setIds((f) => ({ ...f, traceId: e.target.value || undefined }))}
            placeholder="traceId"
          />
        </details>
        {filtered && (
          <button
            type="button"
            className="link"
            onClick={() => {
              setIds({});
              setWho("");
              setWhat("all");
            }}
          >
            Clear
          </button>
        )}
      </form>
      {notice && (
        <p className={`notice ${notice.tone}`} role={notice.tone === "error" ? "alert" : "status"}>
          {notice.text}
        </p>
      )}
      {audit.isPending && <p className="muted">Loading the history…</p>}
      {audit.isError && <LoadFailed what="the history" query={audit} />}
      {audit.data && shown.length === 0 && (
        <p className="muted empty" data-testid="audit-empty">
          {filtered
            ? "Nothing in the history matches this filter."
            : reads > 0
              ? "Nothing was changed or suggested here yet: only reads (Show reads lists them)."
              : "Nothing has happened on this page yet."}
        </p>
      )}
      {shown.length > 0 && (
        <table className="audit">
          <caption className="sr-only">History of this page, newest first</caption>
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">What happened</th>
            </tr>
          </thead>
          <tbody>
            {shown.map((record) => (
              <tr
                key={record.id}
                className={`kind-${recordKind(record)}`}
                data-effect={record.effect}
                data-outcome={record.outcome}
                data-tool-call-id={record.identity.toolCallId ?? undefined}
                data-run-id={record.identity.runId ?? undefined}
              >
                <td data-label="When" className="when">
                  <RelativeTime iso={record.at} />
                </td>
                <td data-label="What happened">
                  <Entry record={record} />{" "}
                  {record.revertable && record.commandId && (
                    <button
                      type="button"
                      className="small"
                      disabled={revert.isPending}
                      onClick={() => proposeRevert(record.commandId!)}
                    >
                      Revert
                    </button>
                  )}
                  <EntryDetails record={record} pageRef={pageRef} onFilter={setIds} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}

/** "Ben’s agent’s suggestion", "Ada’s suggestion": whose proposal a decision was on. */
function suggestionOf(proposer: Who | null) {
  return proposer ? `${possessive(whoShort(proposer))} suggestion` : "a suggestion";
}

/** Where a proposing record's suggestion stands now: its one final state (the server's). */
function finalState(record: AuditRow): string {
  const proposal = record.proposal;
  if (!proposal) return "";
  const by = proposal.decidedBy ? ` by ${proposal.decidedBy}` : "";
  switch (proposal.status) {
    case "pending":
      return " — waiting for review";
    case "rejected":
      return ` — rejected${by}`;
    case "applied_in_part":
      return ` — applied in part${by}`;
    case "applied_with_edits":
      return ` — applied with ${proposal.decidedBy ? possessive(proposal.decidedBy) : "a person’s"} edits`;
    default:
      return ` — applied${by}`;
  }
}

/** How a person's approval is said: "approved by Ada", "2 of 3 changes applied by Ada", "applied with Ada’s edits". */
function approvalWords(record: AuditRow, actor: string) {
  const decision = record.decision!;
  if (decision.edits) return `applied with ${possessive(actor)} edits`;
  if (decision.part) return `${decision.part.kept} of ${decision.part.total} changes applied by ${actor}`;
  return `approved by ${actor}`;
}

/** A record as one sentence: who did what, and what came of it. The one wording of the history. */
export function entrySentence(record: AuditRow): string {
  const actor = whoShort(record.who);
  const tool = toolLabel(record.identity.toolName);
  const what = record.description ?? `made the edit “${tool}”`;
  const decision = record.decision;
  const reverting = record.identity.toolName === "panel.page.revert";
  if (recordKind(record) === "read") return `${actor} read the page (“${tool}”)`;
  if (decision) {
    if (record.outcome === "rejected") return `${actor} rejected ${suggestionOf(decision.proposer)}`;
    if (record.effect === "write" && record.outcome === "ok") {
      if (reverting) return `${actor} took back an edit: ${what}`;
      const author = decision.proposer ? whoShort(decision.proposer) : "Someone";
      return decision.proposer && whoShort(decision.proposer) === actor && !decision.edits && !decision.part
        ? `${actor} ${what} — applied their own suggestion`
        : `${author} ${what} — ${approvalWords(record, actor)}`;
    }
    return `${actor} tried to apply ${suggestionOf(decision.proposer)} — ${outcomeText(record)}`;
  }
  // An agent's repeat of its held call is answered with the decision: it asked, it did not decide (issue 36).
  if (askedAgain(record))
    return `${actor} asked again about its suggestion “${tool}” — ${
      record.errorCode === "mnote_tool_rejected" ? "told it was rejected" : "told it was still waiting for review"
    }`;
  if (record.outcome === "proposal" || record.outcome === "held_for_approval") {
    const noun = reverting ? "taking back an edit" : `“${tool}”`;
    return `${actor} suggested ${noun}${finalState(record) || " — waiting for review"}`;
  }
  if (record.outcome === "replayed") return `${actor} repeated “${tool}” — answered with the result it had before`;
  if (record.effect === "write" && record.outcome === "ok")
    return reverting ? `${actor} took back an edit: ${what}` : `${actor} ${what}`;
  return `${actor} tried “${tool}” — ${outcomeText(record)}`;
}

/** One entry's sentence, with what it quotes marked up: a rejection's reason, an edit's two versions. */
function Entry({ record }: { record: AuditRow }) {
  const decision = record.decision;
  const sentence = entrySentence(record);
  const kind = decision
    ? record.outcome === "rejected"
      ? "rejected"
      : decision.edits
        ? "applied_with_edits"
        : decision.part
          ? "applied_in_part"
          : "approved"
    : undefined;
  const description = record.description;
  const at = description ? sentence.indexOf(description) : -1;
  return (
    <span className={`entry${decision ? " decision" : ""}`} data-decision={kind}>
      {at >= 0 ? (
        <>
          {sentence.slice(0, at)}
          <span className="write-description" data-testid="write-description">
            {description}
          </span>
          {sentence.slice(at + description!.length)}
        </>
      ) : (
        sentence
      )}
      {record.outcome === "rejected" && decision?.reason && <> — “{decision.reason}”</>}
      {record.proposal?.status === "rejected" && record.proposal.reason && <> — “{record.proposal.reason}”</>}
      {decision?.edits && (
        <details className="edits">
          <summary>
            {decision.edits.length} edited block{decision.edits.length === 1 ? "" : "s"}
          </summary>
          <ul>
            {decision.edits.map((edit) => (
              <li key={edit.blockId} data-edited-block={edit.blockId}>
                Suggested: <q>{edit.proposed.text}</q> → applied: <q>{edit.applied.text}</q>
              </li>
            ))}
          </ul>
        </details>
      )}
    </span>
  );
}

/** The ids behind an entry, for whoever needs them: who by id, the run, call and trace, the change record. */
function EntryDetails({
  record,
  pageRef,
  onFilter,
}: {
  record: AuditRow;
  pageRef: PageRef;
  onFilter: (filter: { runId?: string; traceId?: string }) => void;
}) {
  const [showCommand, setShowCommand] = useState(false);
  const { runId, traceId } = record.identity;
  return (
    <details className="ids entry-details">
      <summary>Details</summary>
      <span className="detail-line">
        {toolLabel(record.identity.toolName)}: {outcomeText(record)}, at <RelativeTime iso={record.at} />.
      </span>
      <CopyableId label="user" value={record.identity.actorId} />
      <CopyableId label="call" value={record.identity.toolCallId} />
      <CopyableId label="record" value={String(record.id)} />
      {runId && (
        <button type="button" className="link" onClick={() => onFilter({ runId })}>
          Show only run {runId}
        </button>
      )}{" "}
      {traceId && (
        <button type="button" className="link" onClick={() => onFilter({ traceId })}>
          Show only trace {traceId}
        </button>
      )}
      {record.commandId && (
        <>
          {" "}
          <button
            type="button"
            className="link command-link"
            aria-expanded={showCommand}
            onClick={() => setShowCommand((open) => !open)}
          >
            Change record {record.commandId}
          </button>
          {showCommand && <CommandDetail pageRef={pageRef} commandId={record.commandId} />}
        </>
      )}
    </details>
  );
}

function CommandDetail({ pageRef, commandId }: { pageRef: PageRef; commandId: string }) {
  const trpc = useTRPC();
  const command = useQuery(trpc.panel.command.get.queryOptions({ ...pageRef, commandId }));
  if (command.isError)
    return (
      <span className="command-detail error" role="alert">
        Could not load the change record: {command.error.message}{" "}
        <button type="button" className="small" onClick={() => void command.refetch()}>
          Retry
        </button>
      </span>
    );
  if (!command.data) return <span className="muted"> loading…</span>;
  return (
    <span className="command-detail" role="note">
      Change record: page version {command.data.revisionBefore} → {command.data.revisionAfter}, by{" "}
      {whoText(command.data.who)} (<code>{command.data.identity.actorId}</code>) at{" "}
      <RelativeTime iso={command.data.createdAt} /> (<code>{command.data.name}</code>)
    </span>
  );
}
