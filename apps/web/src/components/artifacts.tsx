"use client";

import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "~/trpc/react";
import { CopyableId } from "./copyable-id";
import { RelativeTime } from "./relative-time";
import { LoadFailed } from "./load-failed";
import { MarkdownText } from "./markdown-text";

/** The page's summary and AI notes, each with the reference edge that ties it to the page. */
export function Artifacts({ pageRef }: { pageRef: { workspaceId: string; documentId: string } }) {
  const trpc = useTRPC();
  const artifacts = useQuery(trpc.panel.artifacts.list.queryOptions(pageRef));
  if (artifacts.isError) return <LoadFailed what="the artifacts" query={artifacts} />;
  if (!artifacts.data) return <p className="muted">Loading artifacts…</p>;
  const { nodes, edges } = artifacts.data;
  const summary = nodes.find((n) => n.kind === "summary");
  const notes = nodes.filter((n) => n.kind === "ai_note");
  const edgeOf = (nodeId: string) => edges.find((e) => e.toNodeId === nodeId);
  return (
    <div className="artifacts">
      <h3>Summary</h3>
      {summary ? (
        <article className="card artifact" data-kind="summary">
          <MarkdownText markdown={summary.content} />
          <div className="muted artifact-meta">
            updated <RelativeTime iso={summary.updatedAt} />{" "}
            <details className="ids">
              <summary>Details</summary>
              <CopyableId label="node" value={summary.id} />{" "}
              <CopyableId
                label={`edge (${edgeOf(summary.id)?.kind ?? "missing"})`}
                value={edgeOf(summary.id)?.id ?? "missing"}
              />
            </details>
          </div>
        </article>
      ) : (
        <p className="muted">No summary yet.</p>
      )}
      <h3>AI notes ({notes.length})</h3>
      {notes.length === 0 && <p className="muted">No AI notes yet.</p>}
      <ul className="notes">
        {notes.map((note) => (
          <li key={note.id} className="card artifact" data-kind="ai_note">
            <MarkdownText markdown={note.content} />
            <div className="muted artifact-meta">
              <RelativeTime iso={note.createdAt} />{" "}
              <details className="ids">
                <summary>Details</summary>
                <CopyableId label="node" value={note.id} />{" "}
                <CopyableId label="edge" value={edgeOf(note.id)?.id ?? "missing"} />
              </details>
            </div>
          </li>
        ))}
      </ul>
    </div>
  );
}
