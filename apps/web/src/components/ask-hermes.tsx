"use client";

import { canonicalToolName, LIMITS } from "@mnote/contract";
import {
  endsRun,
  hermesDoor,
  isLive,
  matchRecords,
  RELAYED_CHOICES,
  type RelayedChoice,
  refusalMessage,
  type StartedRunAnswer,
  newRunView,
  type NumberedRunLine,
  reduceRun,
  type RunView,
} from "@mnote/hermes-runs";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useCallback, useEffect, useRef, useState } from "react";
import { useTRPC } from "~/trpc/react";
import type { PageRef } from "~/trpc/types";
import { formatTime, outcomeText, toolLabel } from "./labels";

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

/** A run the panel started: what POST /api/hermes/runs answers. */
export type StartedRun = StartedRunAnswer;

/**
 * Announced on `window` when a run of this page's conversation was started elsewhere in the panel ("Tell Hermes"
 * on a rejected proposal): the Ask Hermes box follows it as if it had been asked there.
 */
export const ASK_HERMES_RUN_EVENT = "mnote:ask-hermes-run";

/**
 * Start a run (a conversation's first turn, or its next with `sessionId`) through the panel's door: the one way
 * the box and "Tell Hermes" ask. `startKey` names the question, so a retried start names the same run.
 */
export async function startHermesRun(body: {
  workspaceId: string;
  documentId: string;
  input: string;
  startKey: string;
  sessionId?: string | null;
  /** Asked from a comment thread (decision 0040): the server hands Hermes the thread as quoted data. */
  threadId?: string;
}): Promise<{ started: StartedRun } | { error: string }> {
  const { sessionId, ...rest } = body;
  const answer = await hermesDoor.start({ ...rest, ...(sessionId ? { sessionId } : {}) });
  if (answer.ok) return { started: answer.value };
  return { error: answer.status === 0 ? "The panel could not be reached; nothing was asked." : answer.message };
}

/** What the box says when Hermes had no run left to stop (it ended, or Hermes restarted). */
const STOP_FOUND_IT_ENDED = "Hermes had no run left to stop: it ended (or Hermes restarted). Ask again to go on.";

/** "Ask Hermes" in the page's AI panel: start a run about this page, watch it, answer it, stop it. */
export function AskHermes({ pageRef, canWrite }: { pageRef: PageRef; canWrite: boolean }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const connection = useQuery({
    queryKey: ["hermes", "connection"],
    queryFn: async () => {
      const answer = await hermesDoor.connection();
      if (!answer.ok) throw new Error(answer.message);
      return answer.value;
    },
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
      void follow(runId, 0, true);
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

  /**
   * Reads the run's lines from the panel (any instance has them) and, when the connection drops while the
   * run goes on, reads on after the last line it had — a few times, then says the run was lost.
   */
  const follow = async (runId: string, after: number, reload = false) => {
    const controller = new AbortController();
    reading.current?.abort();
    reading.current = controller;
    let last = after;
    for (let attempt = 0; attempt < 4; attempt++) {
      if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 500 * attempt));
      if (controller.signal.aborted) return;
      let response: Response;
      try {
        response = await hermesDoor.events(runId, last, reload && attempt === 0, controller.signal);
      } catch {
        if (controller.signal.aborted) return;
        continue;
      }
      if (!response.ok || !response.body) {
        const message = await refusalMessage(response);
        if (response.status === 404) window.sessionStorage.removeItem(runKey(pageRef.documentId));
        update((s) => ({ ...s, phase: "lost", message }));
        return;
      }
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = "";
      let ended = false;
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          buffer += value;
          let newline = buffer.indexOf("\n");
          while (newline !== -1) {
            const text = buffer.slice(0, newline);
            buffer = buffer.slice(newline + 1);
            newline = buffer.indexOf("\n");
            if (!text) continue;
            const line = JSON.parse(text) as NumberedRunLine;
            last = Math.max(last, line.seq);
            if (endsRun(line)) ended = true;
            apply(runId, line);
          }
        }
      } catch {
        if (controller.signal.aborted) return;
      }
      // The panel closes a run's stream once it is over; a stream cut before that is read on.
      if (ended) break;
    }
    update((s) =>
      isLive(s.phase)
        ? {
            ...s,
            phase: "lost",
            message: "The panel lost the run's events; its tool calls show below from the audit trail.",
          }
        : s,
    );
    refreshTrail();
  };

  /** Show and follow a run just started in this conversation (asked here, or told from a rejected proposal). */
  const begin = (started: StartedRun) => {
    window.sessionStorage.setItem(sessionKey(pageRef.documentId), started.sessionId);
    window.sessionStorage.setItem(runKey(pageRef.documentId), started.runId);
    setSessionId(started.sessionId);
    const floor = started.sessionId === sessionId ? Math.max(0, ...(trail.data ?? []).map((r) => r.id)) : 0;
    setRun({ ...newRunView(started.runId), auditFloor: floor });
    setNotice(null);
    void follow(started.runId, 0);
  };
  // "Tell Hermes" starts the conversation's next turn from the Proposals tab: the box follows it. Subscribed
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
    const answer = await startHermesRun({ ...pageRef, input: question, startKey, sessionId });
    setBusy(false);
    if ("error" in answer) return setNotice(answer.error);
    startKeyRef.current = null;
    setQuestion("");
    begin(answer.started);
  };

  const stop = async () => {
    if (!run) return;
    update((s) => ({ ...s, phase: "stopping" }));
    const answer = await hermesDoor.stop(run.runId);
    if (!answer.ok) return setNotice(answer.message);
    // Hermes had nothing to stop (the run was over, or a restart of Hermes ended it): say so, not "Stopping…".
    if (answer.value.status === "ended") {
      update((s) => (isLive(s.phase) ? { ...s, phase: "lost", message: STOP_FOUND_IT_ENDED } : s));
    }
  };
  // While a run is live, the box adds to what Hermes is doing (Hermes 0.21's steer) instead of asking anew.
  const steer = async () => {
    if (!run || !question.trim()) return;
    setBusy(true);
    const answered = await hermesDoor.steer(run.runId, question.trim());
    setBusy(false);
    if (!answered.ok) return setNotice(answered.message);
    setNotice(null);
    setQuestion("");
  };
  const answer = async (choice: string) => {
    // The server relays only these (and refuses any other choice): a button for another is never sent.
    const relayed = RELAYED_CHOICES.find((known): known is RelayedChoice => known === choice);
    if (!run || !relayed) return;
    update((s) => ({ ...s, approval: null, phase: "running" }));
    const answered = await hermesDoor.approval(run.runId, relayed, run.approval?.requestId);
    if (!answered.ok) setNotice(answered.message);
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
    ? (connection.data?.help ?? "Hermes is not connected to this panel.")
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
            <ol className="ask-calls" aria-label="Tool calls of this run">
              {run.calls.map((call, index) => {
                const record = recordFor(index);
                return (
                  <li key={index} data-testid="ask-hermes-call" data-tool={call.tool} data-status={call.status}>
                    <strong>{toolLabel(canonicalTool(call.tool))}</strong>
                    {toolLabel(canonicalTool(call.tool)) !== call.tool && (
                      <>
                        {" "}
                        <code>{call.tool}</code>
                      </>
                    )}{" "}
                    —{" "}
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
                        {" "}
                        · audit #{record.id}
                        {held(record) ? " — waits under Proposals" : `: ${outcomeText(record)}`}
                        {record.commandId && <code> {record.commandId}</code>}
                      </span>
                    )}
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
          <summary>This conversation's tool calls (from the audit trail)</summary>
          <ul data-testid="ask-hermes-trail">
            {records.map((record) => (
              <li key={record.id}>
                {formatTime(record.at)} · {toolLabel(record.identity.toolName)} · {outcomeText(record)}
                {record.commandId && <code> {record.commandId}</code>}
              </li>
            ))}
          </ul>
        </details>
      )}
    </section>
  );
}
