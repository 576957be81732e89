"use client";

import { canonicalToolName, LIMITS } from "@mnote/contract";
import {
  endsRun,
  isLive,
  matchRecords,
  RELAYED_CHOICES,
  type RelayedChoice,
  newRunView,
  type NumberedRunLine,
  reduceRun,
  type RunView,
} from "@mnote/hermes-runs";
import type { AppRouter } from "@mnote/tools";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { TRPCClientError } from "@trpc/client";
import { useCallback, useEffect, useRef, useState } from "react";
import { useTRPC, useTRPCClient } from "~/trpc/react";
import { refusalOf } from "~/trpc/refusal";
import type { PageRef, RouterOutputs } from "~/trpc/types";
import { outcomeText, toolLabel } from "./labels";
import { RelativeTime } from "./relative-time";

/** A run as this tab shows it, and where its own audit records start. */
type RunState = RunView & {
  /** The newest audit record of this conversation when the run started: its own records come after. */
  auditFloor: number;
};

/** A write mnote held for a person: Hermes calls it an error (the envelope is not ok); the panel says what it is. */
const held = (record: { outcome: string } | undefined) =>
  record?.outcome === "held_for_approval" || record?.outcome === "proposal";

/** The only answers the panel relays (the server refuses `session` and `always`). */
const CHOICE_LABELS: Record<string, string> = { once: "Approve once", deny: "Deny" };

/** Hermes's tool name (mnote_page_get) → mnote's (mnote.page.get), to find the call in the audit trail. */
const canonicalTool = (tool: string) => canonicalToolName(tool) ?? tool;

/** The run this tab follows: its id only (sessionStorage), so a reload reads it on from the panel. */
const runKey = (documentId: string) => `mnote.hermes.run.${documentId}`;

/** The conversation this tab is having about the page: only its id is kept (sessionStorage), never its text. */
const sessionKey = (documentId: string) => `mnote.hermes.session.${documentId}`;

/** A run the panel started: what `panel.hermes.ask` answers. */
export type StartedRun = RouterOutputs["panel"]["hermes"]["ask"];

/** The panel's typed client (`useTRPCClient`): Ask Hermes calls the router's `panel.hermes.*` like every view. */
type PanelClient = ReturnType<typeof useTRPCClient>;

/** What the box says of a refused call: the router's message, or that the panel was not reached. */
function refusalText(error: unknown, unreached = "The panel could not be reached."): string {
  if (!(error instanceof TRPCClientError)) return unreached;
  // The router's errors carry their AppError (its `errorFormatter`); a request that never reached it has none.
  const refused = error as TRPCClientError<AppRouter>;
  return refused.data?.appError ? refusalOf(refused).message : unreached;
}

/**
 * Announced on `window` when a run of this page's conversation was started elsewhere in the panel ("Tell Hermes"
 * on a rejected proposal): the Ask Hermes box follows it as if it had been asked there.
 */
export const ASK_HERMES_RUN_EVENT = "mnote:ask-hermes-run";

/**
 * Start a run (a conversation's first turn, or its next with `sessionId`) through `panel.hermes.ask`: the one way
 * the box and "Tell Hermes" ask. `startKey` names the question, so a retried start names the same run.
 */
export async function startHermesRun(
  client: PanelClient,
  body: {
    workspaceId: string;
    documentId: string;
    input: string;
    startKey: string;
    sessionId?: string | null;
    /** Asked from a comment thread (decision 0040): the server hands Hermes the thread as quoted data. */
    threadId?: string;
  },
): Promise<{ started: StartedRun } | { error: string }> {
  const { sessionId, ...rest } = body;
  try {
    return { started: await client.panel.hermes.ask.mutate({ ...rest, ...(sessionId ? { sessionId } : {}) }) };
  } catch (error) {
    return { error: refusalText(error, "The panel could not be reached; nothing was asked.") };
  }
}

/** What the box says when Hermes had no run left to stop (it ended, or Hermes restarted). */
const STOP_FOUND_IT_ENDED = "Hermes had no run left to stop: it ended (or Hermes restarted). Ask again to go on.";

/** "Ask Hermes" in the page's AI panel: start a run about this page, watch it, answer it, stop it. */
export function AskHermes({ pageRef, canWrite }: { pageRef: PageRef; canWrite: boolean }) {
  const trpc = useTRPC();
  const client = useTRPCClient();
  const queryClient = useQueryClient();
  const connection = useQuery({
    ...trpc.panel.hermes.connection.queryOptions(),
    // The box says when Hermes stops answering (the server checks at most every 10 s).
    refetchInterval: 30_000,
  });
  const [sessionId, setSessionId] = useState<string | null>(null);
  const [question, setQuestion] = useState("");
  const [run, setRun] = useState<RunState | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const reading = useRef<AbortController | null>(null);
  const startKeyRef = useRef<string | null>(null);

  useEffect(() => {
    const stored = window.sessionStorage.getItem(sessionKey(pageRef.documentId));
    setSessionId(stored);
    // A reload mid-run: read the run again from the panel (any instance has its lines), from the start.
    const runId = window.sessionStorage.getItem(runKey(pageRef.documentId));
    if (stored && runId) {
      setRun({ ...newRunView(runId), auditFloor: 0 });
      follow(runId, 0, true);
    }
    return () => reading.current?.abort();
    // `follow` is this render's; the effect runs once per page.
  }, [pageRef.documentId]);

  // The conversation's tool calls, from the audit trail: what survives a reload.
  const trail = useQuery({
    ...trpc.panel.audit.list.queryOptions({ ...pageRef, sessionId: sessionId ?? "", limit: 50 }),
    enabled: sessionId !== null,
  });
  // Every audit list (this conversation's, the Audit trail tab's) and the proposals: a run's event handlers
  // outlive the render that started them, so they must not name a session id from back then.
  const refreshTrail = useCallback(() => {
    void queryClient.invalidateQueries({ queryKey: trpc.panel.audit.list.pathKey() });
    void queryClient.invalidateQueries({ queryKey: trpc.panel.proposals.list.pathKey() });
  }, [queryClient, trpc]);

  const update = (change: (state: RunState) => RunState) => setRun((state) => (state ? change(state) : state));
  /** One more line of the run this tab follows (a line of a run it no longer shows changes nothing). */
  const apply = (runId: string, line: NumberedRunLine) => {
    update((s) => (s.runId === runId ? { ...s, ...reduceRun(s, line) } : s));
    if (line.type === "tool.completed" || line.type === "closed") refreshTrail();
  };

  /** The box gives up on a run's events: it may go on in Hermes; its calls show from the audit trail. */
  const lostEvents = () =>
    update((s) =>
      isLive(s.phase)
        ? {
            ...s,
            phase: "lost",
            message: "The panel lost the run's events; its tool calls show below from the audit trail.",
          }
        : s,
    );

  /**
   * Follows the run's lines from the panel (`panel.hermes.events`: any instance has them). A stream cut while the
   * run goes on is read on by the link itself, after the last line it had (Last-Event-ID); after a few failed tries
   * in a row, or a stream that ends before the run did, the box says the run's events were lost.
   */
  const follow = (runId: string, after: number, reload = false) => {
    reading.current?.abort();
    const controller = new AbortController();
    reading.current = controller;
    let ended = false;
    let failedTries = 0;
    const subscription = client.panel.hermes.events.subscribe(
      { runId, after, reload },
      {
        onData: ({ data: line }) => {
          failedTries = 0;
          if (endsRun(line)) ended = true;
          apply(runId, line);
        },
        onError: (error) => {
          if (controller.signal.aborted) return;
          // The router refused the stream (not this person's run, or no longer): say why, and forget the run.
          const refusal = refusalOf(error);
          if (refusal.code === "mnote_tool_not_found") window.sessionStorage.removeItem(runKey(pageRef.documentId));
          update((s) => ({ ...s, phase: "lost", message: refusal.message }));
        },
        onComplete: () => {
          if (controller.signal.aborted) return;
          // The panel ends a run's stream once it is over; one that ended before that lost the run.
          if (!ended) lostEvents();
          refreshTrail();
        },
        onConnectionStateChange: (state) => {
          if (controller.signal.aborted || state.state !== "connecting" || !state.error) return;
          if (++failedTries < 4) return;
          controller.abort();
          lostEvents();
          refreshTrail();
        },
      },
    );
    controller.signal.addEventListener("abort", () => subscription.unsubscribe(), { once: true });
  };

  /** Show and follow a run just started in this conversation (asked here, or told from a rejected proposal). */
  const begin = (started: StartedRun) => {
    window.sessionStorage.setItem(sessionKey(pageRef.documentId), started.sessionId);
    window.sessionStorage.setItem(runKey(pageRef.documentId), started.runId);
    setSessionId(started.sessionId);
    const floor = started.sessionId === sessionId ? Math.max(0, ...(trail.data ?? []).map((r) => r.id)) : 0;
    setRun({ ...newRunView(started.runId), auditFloor: floor });
    setNotice(null);
    follow(started.runId, 0);
  };
  // "Tell Hermes" starts the conversation's next turn from the Suggestions tab: the box follows it. Subscribed
  // anew each render, so the handler sees this render's conversation and trail.
  useEffect(() => {
    const onRun = (event: Event) => begin((event as CustomEvent<StartedRun>).detail);
    window.addEventListener(ASK_HERMES_RUN_EVENT, onRun);
    return () => window.removeEventListener(ASK_HERMES_RUN_EVENT, onRun);
  });

  const ask = async (event: React.FormEvent) => {
    event.preventDefault();
    if (!question.trim() || busy) return;
    if (run && isLive(run.phase)) return void steer();
    setBusy(true);
    setNotice(null);
    // One key per question: a retry of this start (a double click, a flaky network) names the same run.
    const startKey = (startKeyRef.current ??= crypto.randomUUID());
    const answer = await startHermesRun(client, { ...pageRef, input: question, startKey, sessionId });
    setBusy(false);
    if ("error" in answer) return setNotice(answer.error);
    startKeyRef.current = null;
    setQuestion("");
    begin(answer.started);
  };

  const stop = async () => {
    if (!run) return;
    update((s) => ({ ...s, phase: "stopping" }));
    let answer;
    try {
      answer = await client.panel.hermes.stop.mutate({ runId: run.runId });
    } catch (error) {
      return setNotice(refusalText(error));
    }
    // Hermes had nothing to stop (the run was over, or a restart of Hermes ended it): say so, not "Stopping…".
    if (answer.status === "ended") {
      update((s) => (isLive(s.phase) ? { ...s, phase: "lost", message: STOP_FOUND_IT_ENDED } : s));
    }
  };
  // While a run is live, the box adds to what Hermes is doing (Hermes 0.21's steer) instead of asking anew.
  const steer = async () => {
    if (!run || !question.trim()) return;
    setBusy(true);
    const words = question.trim();
    let steered: { runId: string };
    try {
      steered = await client.panel.hermes.steer.mutate({ runId: run.runId, input: words });
    } catch (error) {
      return setNotice(refusalText(error));
    } finally {
      setBusy(false);
    }
    // Hermes took the words in (its `run.steered` event does not repeat them): they show here, in the answer.
    update((s) => (s.runId === steered.runId ? { ...s, ...reduceRun(s, { type: "steered", text: words }) } : s));
    setNotice(null);
    setQuestion("");
  };
  const answer = async (choice: string) => {
    // The server relays only these (and refuses any other choice): a button for another is never sent.
    const relayed = RELAYED_CHOICES.find((known): known is RelayedChoice => known === choice);
    if (!run || !relayed) return;
    update((s) => ({ ...s, approval: null, phase: "running" }));
    const requestId = run.approval?.requestId;
    await client.panel.hermes.approve
      .mutate({ runId: run.runId, choice: relayed, ...(requestId ? { requestId } : {}) })
      .catch((error: unknown) => setNotice(refusalText(error)));
  };
  const newConversation = () => {
    reading.current?.abort();
    window.sessionStorage.removeItem(sessionKey(pageRef.documentId));
    window.sessionStorage.removeItem(runKey(pageRef.documentId));
    setSessionId(null);
    setRun(null);
    setNotice(null);
  };

  const live = run !== null && isLive(run.phase);
  // Records of this conversation, oldest first; a streamed call is linked to its record by tool and order.
  const records = (trail.data ?? []).slice().reverse();
  const matched = run ? matchRecords(run.calls, records, run.auditFloor) : [];
  const recordFor = (index: number) => matched[index];

  if (connection.isPending) return null;
  const disabledReason = !connection.data?.connected
    ? (connection.data?.help ?? "Ask Hermes is not available right now.")
    : !canWrite
      ? "Only people who may edit this page can ask Hermes about it: its edits are made for the person asking."
      : null;

  return (
    <section className="ask-hermes" aria-labelledby="ask-hermes-title">
      <h3 id="ask-hermes-title">Ask Hermes</h3>
      {disabledReason && (
        <p className="muted" data-testid="ask-hermes-disabled">
          {disabledReason}
        </p>
      )}
      <form onSubmit={ask} className="ask-form">
        <label htmlFor="ask-hermes-input" className="sr-only">
          Ask Hermes about this page
        </label>
        <textarea
          id="ask-hermes-input"
          rows={2}
          value={question}
          maxLength={LIMITS.askQuestionChars}
          disabled={disabledReason !== null || run?.phase === "stopping"}
          placeholder={
            live
              ? "Add to what Hermes is doing, e.g. also mention the budget"
              : "Ask Hermes about this page, e.g. add a line to the plan"
          }
          onChange={(e) => setQuestion(e.target.value)}
        />
        <div className="row">
          <button type="submit" disabled={disabledReason !== null || live || busy || !question.trim()}>
            {sessionId ? "Ask" : "Ask Hermes"}
          </button>
          {live && (
            <button
              type="button"
              onClick={steer}
              disabled={disabledReason !== null || busy || run?.phase !== "running" || !question.trim()}
              data-testid="ask-hermes-steer"
            >
              Add to what Hermes is doing
            </button>
          )}
          {live && (
            <button type="button" onClick={stop} disabled={run?.phase === "stopping"}>
              Stop
            </button>
          )}
          {sessionId && !live && (
            <button type="button" className="link" onClick={newConversation}>
              New conversation
            </button>
          )}
        </div>
      </form>
      {notice && (
        <p role="alert" className="error" data-testid="ask-hermes-error">
          {notice}
        </p>
      )}
      {run && (
        <div className="ask-run" data-testid="ask-hermes-run" data-phase={run.phase} aria-live="polite">
          <p className="muted">
            {run.phase === "running" && "Hermes is working…"}
            {run.phase === "waiting" && "Hermes waits for your answer."}
            {run.phase === "stopping" && "Stopping…"}
            {run.phase === "completed" && "Hermes is done."}
          </p>
          {run.calls.length > 0 && (
            <ol className="ask-calls" aria-label="What Hermes did in this run">
              {run.calls.map((call, index) => {
                const record = recordFor(index);
                return (
                  <li key={index} data-testid="ask-hermes-call" data-tool={call.tool} data-status={call.status}>
                    <strong>{toolLabel(canonicalTool(call.tool))}</strong> —{" "}
                    {call.status === "running"
                      ? "running…"
                      : held(record)
                        ? "held for approval"
                        : call.status === "error"
                          ? "failed"
                          : "done"}
                    {call.durationSeconds !== null && <> in {Math.round(call.durationSeconds * 1000)} ms</>}
                    {record && (
                      <span
                        className="ask-audit"
                        data-testid="ask-hermes-audit"
                        data-outcome={record.outcome}
                        data-error-code={record.errorCode ?? undefined}
                      >
                        {held(record)
                          ? ": the suggestion waits for you under Suggestions"
                          : outcomeText(record) === "done"
                            ? ""
                            : `: ${outcomeText(record)}`}
                      </span>
                    )}
                    <CallDetails tool={call.tool} record={record} />
                  </li>
                );
              })}
            </ol>
          )}
          {run.text && (
            <p className="ask-answer" data-testid="ask-hermes-answer">
              {/* Hermes opens the text after tool calls with a paragraph break. */}
              {run.text.trimStart()}
            </p>
          )}
          {run.approval && (
            <div
              className="notice"
              role="group"
              aria-label="Hermes asks for approval"
              data-testid="ask-hermes-approval"
            >
              <p>
                Hermes asks: {run.approval.description}
                {run.approval.command && (
                  <>
                    {" "}
                    <code>{run.approval.command}</code>
                  </>
                )}
              </p>
              {run.approval.choices.map((choice) => (
                <button key={choice} type="button" className="small" onClick={() => answer(choice)}>
                  {CHOICE_LABELS[choice] ?? choice}
                </button>
              ))}
            </div>
          )}
          {run.refused.map((refused, index) => (
            <p key={index} role="status" className="notice" data-testid="ask-hermes-refused">
              Hermes asked to run <code>{refused.command ?? refused.description}</code> ({refused.description}).{" "}
              {refused.reason}
            </p>
          ))}
          {run.message && (
            <p
              role={run.phase === "stopped" ? "status" : "alert"}
              className={run.phase === "stopped" ? "notice" : "error"}
              data-testid="ask-hermes-message"
            >
              {run.message}
            </p>
          )}
        </div>
      )}
      {sessionId && !live && records.length > 0 && (
        <details className="ask-trail" open={!run}>
          <summary>What Hermes did in this conversation (from the history)</summary>
          <ul data-testid="ask-hermes-trail">
            {records.map((record) => (
              <li key={record.id}>
                <RelativeTime iso={record.at} /> · {toolLabel(record.identity.toolName)} · {outcomeText(record)}
                <CallDetails tool={record.identity.toolName} record={record} />
              </li>
            ))}
          </ul>
        </details>
      )}
    </section>
  );
}

/**
 * A call's ids, one click away (decision 0044): the tool's name as the model calls it, the history entry and the
 * change record it wrote. The line above says what happened in words.
 */
function CallDetails({
  tool,
  record,
}: {
  tool: string;
  record: { id: number; commandId?: string | null } | undefined;
}) {
  return (
    <details className="ids call-details">
      <summary>Details</summary>
      <dl className="meta">
        <dt>Tool</dt>
        <dd>
          <code>{tool}</code>
        </dd>
        {record && (
          <>
            <dt>History entry</dt>
            <dd>
              <code>#{record.id}</code>
            </dd>
          </>
        )}
        {record?.commandId && (
          <>
            <dt>Change record</dt>
            <dd>
              <code>{record.commandId}</code>
            </dd>
          </>
        )}
      </dl>
    </details>
  );
}
