"use client";

import { useState } from "react";

/**
 * "Tell Hermes": send a rejection's reason as the next turn of the Ask Hermes conversation that proposed the
 * edit, through the same door the Ask Hermes box continues a conversation by (`POST /api/hermes/runs` with
 * the conversation's session id). Kept apart from the box: it only starts the run and announces it
 * (`mnote:ask-hermes-run` on window, with the run and session ids) for the box to follow.
 */
export function TellHermesButton({
  pageRef,
  sessionId,
  reason,
}: {
  pageRef: { workspaceId: string; documentId: string };
  sessionId: string;
  reason: string;
}) {
  const [state, setState] = useState<"idle" | "sending" | "sent" | "failed">("idle");
  const tell = async () => {
    setState("sending");
    try {
      const response = await fetch("/api/hermes/runs", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ ...pageRef, sessionId, input: `I rejected your proposed edit. My reason: ${reason}` }),
      });
      if (!response.ok) throw new Error(String(response.status));
      const started = (await response.json()) as { runId: string; sessionId: string };
      window.dispatchEvent(new CustomEvent("mnote:ask-hermes-run", { detail: started }));
      setState("sent");
    } catch {
      setState("failed");
    }
  };
  if (state === "sent") return <span>Told Hermes why.</span>;
  return (
    <>
      <button type="button" className="small" disabled={state === "sending"} onClick={() => void tell()}>
        Tell Hermes
      </button>
      {state === "failed" && <span role="alert"> Could not reach Hermes; try again.</span>}
    </>
  );
}
