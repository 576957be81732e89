"use client";

import { useMutation, useQuery } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useTRPC } from "~/trpc/react";
import type { RouterOutputs } from "~/trpc/types";
import { BlockView } from "./blocks";

type ProposedPage = RouterOutputs["panel"]["pages"]["proposed"][number];

/**
 * An agent's held new pages (decision 0046). The page does not exist yet, so it cannot wait on its own panel: it waits
 * here, under its workspace on the home list, shown whole — title and every block — with Create and Reject. The
 * server decides who sees it and who may decide; after a decision the home list is read again, so a created page
 * shows among the pages.
 */
export function ProposedPages({ workspaceId, initial }: { workspaceId: string; initial: ProposedPage[] }) {
  const trpc = useTRPC();
  const router = useRouter();
  const list = useQuery({ ...trpc.panel.pages.proposed.queryOptions({ workspaceId }), initialData: initial });
  const after = {
    onSuccess: () => {
      void list.refetch();
      router.refresh();
    },
  };
  const approve = useMutation(trpc.panel.pages.approveProposed.mutationOptions(after));
  const reject = useMutation(trpc.panel.pages.rejectProposed.mutationOptions(after));
  if (list.data.length === 0) return null;
  const pending = approve.isPending || reject.isPending;
  const failure = approve.error?.message ?? reject.error?.message ?? approveRefusal(approve.data);
  return (
    <section className="proposed-pages" aria-labelledby={`proposed-${workspaceId}`}>
      <h3 id={`proposed-${workspaceId}`}>Proposed pages</h3>
      {failure && (
        <p role="alert" className="error">
          {failure}
        </p>
      )}
      {list.data.map((page) => (
        <article
          key={page.proposalId}
          className="card"
          data-testid="proposed-page"
          aria-label={`Proposed page ${page.title}`}
        >
          <h4>
            {page.title} <span className="muted">· proposed by {page.proposedBy}</span>
            {page.isPrivate ? <span className="muted"> · private</span> : null}
          </h4>
          <div className="page-body">
            {page.blocks.map((block) => (
              <BlockView key={block.id} block={block} />
            ))}
          </div>
          {page.canDecide && (
            <p>
              <button
                type="button"
                className="primary"
                disabled={pending}
                aria-label={`Create the proposed page ${page.title}`}
                onClick={() => approve.mutate({ workspaceId, proposalId: page.proposalId })}
              >
                Create page
              </button>{" "}
              <button
                type="button"
                disabled={pending}
                aria-label={`Reject the proposed page ${page.title}`}
                onClick={() => reject.mutate({ workspaceId, proposalId: page.proposalId })}
              >
                Reject
              </button>
            </p>
          )}
        </article>
      ))}
    </section>
  );
}

/** An approval the tool chain refused (the envelope's error): said in its words. */
function approveRefusal(envelope: { ok: boolean; error: { message: string } | null } | undefined) {
  return envelope && !envelope.ok ? (envelope.error?.message ?? null) : null;
}
