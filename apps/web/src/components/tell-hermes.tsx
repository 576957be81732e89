"use client";

import { useRef, useState } from "react";
import { useTRPCClient } from "~/trpc/react";
import type { PageRef } from "~/trpc/types";
import { ASK_HERMES_RUN_EVENT, startHermesRun } from "./ask-hermes";

/** What Hermes reads as the conversation's next turn when a person tells it why they rejected its edit. */
export const tellHermesInput = (reason: string) => `I rejected your proposed edit. My reason: ${reason}`;

/**
 * "Tell Hermes": send a rejection's reason as the next turn of the Ask Hermes conversation that proposed the
 * edit, the way the Ask Hermes box asks (`startHermesRun`, with the conversation's session id), then announce
 * the run (`ASK_HERMES_RUN_EVENT`) for the box to show it streaming.
 */
export function TellHermesButton({
  pageRef,
  sessionId,
  reason,
}: {
  pageRef: PageRef;
  sessionId: string;
  reason: string;
}) {
  const client = useTRPCClient();
  const [state, setState] = useState<"idle" | "sending" | "sent">("idle");
  const [failure, setFailure] = useState<string | null>(null);
  // One key for this reason: a second click after a lost answer names the same run.
  const startKey = useRef<string | null>(null);
  const tell = async () => {
    setState("sending");
    setFailure(null);
    const answer = await startHermesRun(client, {
      ...pageRef,
      sessionId,
      input: tellHermesInput(reason),
      startKey: (startKey.current ??= crypto.randomUUID()),
    });
    if ("error" in answer) {
      setFailure(answer.error);
      return setState("idle");
    }
    window.dispatchEvent(new CustomEvent(ASK_HERMES_RUN_EVENT, { detail: answer.started }));
    setState("sent");
  };
  if (state === "sent") return <span data-testid="told-hermes">Told Hermes why: see Ask Hermes.</span>;
  return (
    <>
      <button type="button" className="small" disabled={state === "sending"} onClick={() => void tell()}>
        Tell Hermes
      </button>
      {failure && <span role="alert"> Hermes was not told: {failure}</span>}
    </>
  );
}
