"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useTRPC } from "~/trpc/react";
import type { PageRef, RouterOutputs } from "~/trpc/types";
import { CopyableId } from "./copyable-id";
import { toolLabel, whoText } from "./labels";
import { RelativeTime } from "./relative-time";
import { LoadFailed } from "./load-failed";

/** Every call on this page, newest first: reads, dry runs, writes, replays, denials, decisions. */
export function AuditTrail({ pageRef, onReverted }: { pageRef: PageRef; onReverted: () => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [filter, setFilter] = useState<{ runId?: string; traceId?: string }>({});
  const [openCommand, setOpenCommand] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const audit = useQuery(trpc.panel.audit.list.queryOptions({ ...pageRef, ...filter }));
  const revert = useMutation(
    trpc.panel.page.revert.mutationOptions({
      onSuccess: ({ envelope }) => {
        setNotice(
          envelope.ok
            ? "Revert proposed: review its diff under Proposals."
            : `${envelope.error?.code}: ${envelope.error?.message}`,
        );
        void queryClient.invalidateQueries({ queryKey: trpc.panel.pathKey() });
        if (envelope.ok) onReverted();
      },
      onError: (error) => setNotice(error.message),
    }),
  );
  // The server builds the revert call (ids, key, base revision); the panel names the command only.
  const proposeRevert = (commandId: string) => revert.mutate({ ...pageRef, commandId });

  return (
    <div>
      <form className="row filters" onSubmit={(e) => e.preventDefault()} aria-label="Filter the audit trail">
        <label htmlFor="filter-run">Run</label>
        <input
          id="filter-run"
          value={filter.runId ?? ""}
          onChange={(e) => setFilter((f) => ({ ...f, runId: e.target.value || undefined }))}
          placeholder="runId"
        />
        <label htmlFor="filter-trace">Trace</label>
        <input
          id="filter-trace"
          value={filter.traceId ?? ""}
          onChange={(e) => setFilter((f) => ({ ...f, traceId: e.target.value || undefined }))}
          placeholder="traceId"
        />
        {(filter.runId || filter.traceId) && (
          <button type="button" className="link" onClick={() => setFilter({})}>
            Clear
          </button>
        )}
      </form>
      {notice && (
        <p className="notice ok" role="status">
          {notice}
        </p>
      )}
      {audit.isPending && <p className="muted">Loading the audit trail…</p>}
      {audit.isError && <LoadFailed what="the audit trail" query={audit} />}
      {audit.data && audit.data.length === 0 && (
        <p className="muted empty" data-testid="audit-empty">
          {filter.runId || filter.traceId
            ? "No audit records match this filter."
            : "Nothing has happened on this page yet."}
        </p>
      )}
      {audit.data && audit.data.length > 0 && (
        <div className="table-wrap">
          <table className="audit">
            <caption className="sr-only">Audit trail of this page</caption>
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Effect</th>
                <th scope="col">Tool</th>
                <th scope="col">Who</th>
                <th scope="col">Run · call · trace</th>
                <th scope="col">Result</th>
              </tr>
            </thead>
            <tbody>
              {audit.data.map((record) => (
                <tr
                  key={record.id}
                  data-effect={record.effect}
                  data-outcome={record.outcome}
                  data-tool-call-id={record.identity.toolCallId ?? undefined}
                  data-run-id={record.identity.runId ?? undefined}
                >
                  <td data-label="When">
                    <RelativeTime iso={record.at} />
                  </td>
                  <td data-label="Effect">
                    <span className={`badge effect-${record.effect}`}>{record.effect}</span>
                  </td>
                  <td data-label="Tool">
                    {toolLabel(record.identity.toolName)}
                    {writeDescription(record) && (
                      <span className="write-description" data-testid="write-description">
                        {writeDescription(record)}
                      </span>
                    )}
                  </td>
                  <td data-label="Who">
                    <DecisionText record={record} />
                  </td>
                  <td className="ids" data-label="Run · call · trace">
                    <button
                      type="button"
                      className="link"
                      title="Show only this run"
                      onClick={() => setFilter({ runId: record.identity.runId ?? undefined })}
                    >
                      {record.identity.runId ?? "—"}
                    </button>{" "}
                    · <CopyableId label="call" value={record.identity.toolCallId} /> ·{" "}
                    <button
                      type="button"
                      className="link"
                      title="Show only this trace"
                      onClick={() => setFilter({ traceId: record.identity.traceId ?? undefined })}
                    >
                      {record.identity.traceId ?? "—"}
                    </button>
                  </td>
                  <td data-label="Result">
                    <span className="outcome">{record.outcome}</span>
                    {record.errorCode && <code className="error-code"> {record.errorCode}</code>}
                    {record.commandId && (
                      <>
                        {" "}
                        <button
                          type="button"
                          className="link command-link"
                          aria-expanded={openCommand === record.commandId}
                          onClick={() => setOpenCommand(openCommand === record.commandId ? null : record.commandId!)}
                        >
                          {record.commandId}
                        </button>
                        {openCommand === record.commandId && (
                          <CommandDetail pageRef={pageRef} commandId={record.commandId} />
                        )}
                        {record.revertable && (
                          <button
                            type="button"
                            className="small"
                            disabled={revert.isPending}
                            onClick={() => proposeRevert(record.commandId!)}
                          >
                            Revert
                          </button>
                        )}
                      </>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}

type AuditRow = RouterOutputs["panel"]["audit"]["list"][number];

/**
 * What a write did, in words ("inserted 'Alpha line' after 'Rollout'"): the server's sentence for it — on the row
 * when the audit list gives one, else the one a person's change-by-change decision recorded with its write
 * (decision 0030). The panel writes no sentence of its own.
 */
function writeDescription(record: AuditRow): string | null {
  const onRow = (record as { description?: unknown }).description;
  if (typeof onRow === "string" && onRow) return onRow;
  const recorded = record.detail?.description;
  return typeof recorded === "string" && recorded ? recorded : null;
}
type Who = AuditRow["who"];

/** "Hermes's proposal", "Ben's proposal": whose proposal a decision was on. */
function proposalOf(proposer: Who | null) {
  if (!proposer) return "a proposal";
  const name =
    proposer.holder === "agent" ? (proposer.agentName ?? "an agent") : (proposer.actorName ?? proposer.actorId);
  return `${name}’s proposal`;
}

/**
 * Who did it, by name; on a decision, what they decided on whose proposal: "Ada approved Hermes's proposal",
 * "Ada applied 2 of 3 changes of Hermes's proposal", "Ada rejected Hermes's proposal". The user id is on demand.
 */
function DecisionText({ record }: { record: AuditRow }) {
  const actor = whoText(record.who);
  const decision = record.decision;
  const id = <CopyableId label="user" value={record.identity.actorId} />;
  if (!decision)
    return (
      <span className="who">
        {actor}{" "}
        <details className="ids">
          <summary>id</summary>
          {id}
        </details>
      </span>
    );
  const verb =
    record.outcome === "rejected"
      ? "rejected"
      : record.effect !== "write" || record.outcome !== "ok"
        ? "tried to approve"
        : decision.edits
          ? "applied"
          : decision.part
            ? `applied ${decision.part.kept} of ${decision.part.total} changes of`
            : "approved";
  const kind =
    record.outcome === "rejected"
      ? "rejected"
      : decision.edits
        ? "applied_with_edits"
        : decision.part
          ? "applied_in_part"
          : "approved";
  return (
    <span className="who decision" data-decision={kind}>
      {actor} {verb} {proposalOf(decision.proposer)}
      {record.outcome === "ok" && decision.edits && (
        <> with {record.who.actorName ? `${record.who.actorName}’s` : "their"} edits</>
      )}
      {record.outcome === "rejected" && decision.reason && <> — “{decision.reason}”</>}{" "}
      {decision.edits && (
        <details className="edits">
          <summary>
            {decision.edits.length} edited block{decision.edits.length === 1 ? "" : "s"}
          </summary>
          <ul>
            {decision.edits.map((edit) => (
              <li key={edit.blockId} data-edited-block={edit.blockId}>
                Proposed: <q>{edit.proposed.text}</q> → applied: <q>{edit.applied.text}</q>
              </li>
            ))}
          </ul>
        </details>
      )}{" "}
      <details className="ids">
        <summary>id</summary>
        {id}
      </details>
    </span>
  );
}

function CommandDetail({ pageRef, commandId }: { pageRef: PageRef; commandId: string }) {
  const trpc = useTRPC();
  const command = useQuery(trpc.panel.command.get.queryOptions({ ...pageRef, commandId }));
  if (command.isError)
    return (
      <span className="command-detail error" role="alert">
        Could not load command {commandId}: {command.error.message}{" "}
        <button type="button" className="small" onClick={() => void command.refetch()}>
          Retry
        </button>
      </span>
    );
  if (!command.data) return <span className="muted"> loading…</span>;
  return (
    <span className="command-detail" role="note">
      kernel command <strong>{command.data.name}</strong>, revision {command.data.revisionBefore} →{" "}
      {command.data.revisionAfter}, by {whoText(command.data.who)} (<code>{command.data.identity.actorId}</code>) at{" "}
      <RelativeTime iso={command.data.createdAt} />
    </span>
  );
}
