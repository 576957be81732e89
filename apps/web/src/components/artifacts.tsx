"use client";

import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "~/trpc/react";
import { formatTime } from "./labels";

/** The page's summary and AI notes, each with the reference edge that ties it to the page. */
export function Artifacts({ pageRef }: { pageRef: { workspaceId: string; documentId: string } }) {
  const trpc = useTRPC();
  const artifacts = useQuery(trpc.panel.artifacts.list.queryOptions(pageRef));
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
          <p>{summary.content}</p>
          <p className="muted">
            node <code>{summary.id}</code> · edge <code>{edgeOf(summary.id)?.id ?? "missing"}</code> ({edgeOf(summary.id)?.kind}) · updated {formatTime(summary.updatedAt)}
          </p>
        </article>
      ) : (
        <p className="muted">No summary yet.</p>
      )}
      <h3>AI notes ({notes.length})</h3>
      {notes.length === 0 && <p className="muted">No AI notes yet.</p>}
      <ul className="notes">
        {notes.map((note) => (
          <li key={note.id} className="card artifact" data-kind="ai_note">
            <p>{note.content}</p>
            <p className="muted">
              node <code>{note.id}</code> · edge <code>{edgeOf(note.id)?.id ?? "missing"}</code> · {formatTime(note.createdAt)}
            </p>
          </li>
        ))}
      </ul>
    </div>
  );
}
