"use client";

import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { useTRPC } from "~/trpc/react";
import { RelativeTime } from "./relative-time";

interface Policy {
  approvalRequired: boolean;
  holdArtifacts: boolean;
}

/** A policy in words, as the switches above say it. */
export function describePolicy(policy: Policy): string {
  if (!policy.approvalRequired) return "agent edits apply directly";
  return policy.holdArtifacts
    ? "agent edits, summaries and AI notes wait for approval"
    : "agent edits wait for approval";
}

/**
 * The workspace's policy history (issue 20): every change of what waits for a person's approval, who made it
 * (a person in the panel, or an operator with the CLI), when, from what to what. Read when opened.
 */
export function PolicyHistory({ workspaceId }: { workspaceId: string }) {
  const trpc = useTRPC();
  const [open, setOpen] = useState(false);
  const history = useQuery({
    ...trpc.panel.workspace.policyHistory.queryOptions({ workspaceId }),
    enabled: open,
  });
  return (
    <details className="policy-history" data-testid="policy-history" onToggle={(e) => setOpen(e.currentTarget.open)}>
      <summary>Policy history</summary>
      {history.isPending && open && <p className="muted">Loading…</p>}
      {history.error && <p role="alert">{history.error.message}</p>}
      {history.data && history.data.length === 0 && <p className="muted">No change on record.</p>}
      {history.data && history.data.length > 0 && (
        <ol className="policy-changes">
          {history.data.map((change) => (
            <li key={change.id} data-testid="policy-change">
              <RelativeTime iso={change.at} /> <strong>{change.byName ?? change.by}</strong>
              {change.via === "cli" ? " (CLI)" : ""}: {describePolicy(change.from)} → {describePolicy(change.to)}
            </li>
          ))}
        </ol>
      )}
    </details>
  );
}
