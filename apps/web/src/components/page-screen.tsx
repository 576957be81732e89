"use client";

import { PAGE_OPTION_KEYS, PAGE_OPTION_REGISTRY } from "@mnote/contract";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useEffect, useRef, useState } from "react";
import { useTRPC } from "~/trpc/react";
import { Artifacts } from "./artifacts";
import { AskHermes } from "./ask-hermes";
import { AuditTrail, type Me } from "./audit-trail";
import { BlockView } from "./blocks";
import { isProposalDetail, Proposals } from "./proposals";
import { SignOutButton } from "./sign-out";

const TABS = ["proposals", "audit", "artifacts"] as const;
type Tab = (typeof TABS)[number];
const TAB_LABELS: Record<Tab, string> = { proposals: "Proposals", audit: "Audit trail", artifacts: "Artifacts" };

/** How often the panel asks whether an agent did something on this page. */
const ACTIVITY_POLL_MS = 1_500;

/** The page beside its AI panel. */
export function PageScreen({ workspaceId, documentId, me }: { workspaceId: string; documentId: string; me: Me }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const pageRef = { workspaceId, documentId };
  const [tab, setTab] = useState<Tab>("proposals");
  const view = useQuery(trpc.panel.page.view.queryOptions(pageRef));
  const proposals = useQuery(trpc.panel.proposals.list.queryOptions(pageRef));

  // Live: a cheap cursor (latest audit id and revision) is polled; when it moves, everything refetches.
  const activity = useQuery({ ...trpc.panel.page.activity.queryOptions(pageRef), refetchInterval: ACTIVITY_POLL_MS });
  const seen = useRef<string | null>(null);
  useEffect(() => {
    if (!activity.data) return;
    const cursor = `${activity.data.lastAuditId}:${activity.data.revision}`;
    if (seen.current !== null && seen.current !== cursor) {
      void queryClient.invalidateQueries({
        predicate: (q) => JSON.stringify(q.queryKey).includes("panel") && !JSON.stringify(q.queryKey).includes("activity") && !isProposalDetail(q.queryKey),
      });
    }
    seen.current = cursor;
  }, [activity.data, queryClient]);

  const setApproval = useMutation(
    trpc.panel.workspace.setApproval.mutationOptions({ onSuccess: () => queryClient.invalidateQueries({ queryKey: trpc.panel.pathKey() }) }),
  );

  if (view.isPending) return <main className="loading">Loading…</main>;
  if (view.isError) return <main className="signin"><p role="alert" className="error">{view.error.message}</p></main>;
  const { page, blocks, role, workspace } = view.data;
  const pending = proposals.data?.filter((p) => p.status === "pending").length ?? 0;

  return (
    <>
      <header className="topbar">
        <nav aria-label="Breadcrumb" className="crumbs">
          <Link href="/">mnote</Link> / <span>{workspace.name}</span> / <span aria-current="page">{page.title}</span>
        </nav>
        <span className="who">
          {me.name} ({role}) <SignOutButton />
        </span>
      </header>
      <div className="layout">
        <main className={`page${page.options.wideLayout ? " wide" : ""}${page.options.smallText ? " small-text" : ""}`}>
          <h1 data-testid="page-title">{page.title}</h1>
          <p className="page-meta">
            <span data-testid="page-revision">Revision {page.revision}</span>
            {page.isPrivate && <span className="badge muted-badge">private</span>}
            {PAGE_OPTION_KEYS.filter((key) => page.options[key]).map((key) => (
              <span key={key} className="badge option">
                {PAGE_OPTION_REGISTRY[key].label}
              </span>
            ))}
          </p>
          {page.options.showToc && (
            <nav aria-label="Table of contents" className="toc">
              <ul>
                {blocks.filter((b) => b.type === "heading").map((b) => (
                  <li key={b.id}>{b.text}</li>
                ))}
              </ul>
            </nav>
          )}
          <div className="blocks" data-testid="page-blocks">
            {blocks.map((block) => (
              <BlockView key={block.id} block={block} />
            ))}
            {blocks.length === 0 && <p className="muted">This page is empty.</p>}
          </div>
        </main>
        <aside className="ai-panel" aria-label="Page AI">
          <div className="row between">
            <h2>Page AI</h2>
            {role === "owner" ? (
              <label className="inline">
                <input
                  type="checkbox"
                  checked={workspace.approvalRequired}
                  disabled={setApproval.isPending}
                  onChange={(e) => setApproval.mutate({ workspaceId, approvalRequired: e.target.checked })}
                />{" "}
                Agent edits wait for approval
              </label>
            ) : (
              <span className="muted">{workspace.approvalRequired ? "Agent edits wait for approval" : "Agent edits apply directly"}</span>
            )}
          </div>
          <AskHermes pageRef={pageRef} canWrite={view.data.canWrite} />
          <div role="tablist" aria-label="Page AI views" className="tabs">
            {TABS.map((t) => (
              <button
                key={t}
                type="button"
                role="tab"
                id={`tab-${t}`}
                aria-selected={tab === t}
                aria-controls={`panel-${t}`}
                tabIndex={tab === t ? 0 : -1}
                onClick={() => setTab(t)}
              >
                {TAB_LABELS[t]}
                {t === "proposals" && pending > 0 && <span className="count"> {pending}</span>}
              </button>
            ))}
          </div>
          <section role="tabpanel" id={`panel-${tab}`} aria-labelledby={`tab-${tab}`} className="tabpanel">
            {tab === "proposals" && <Proposals pageRef={pageRef} />}
            {tab === "audit" && <AuditTrail pageRef={pageRef} onReverted={() => setTab("proposals")} />}
            {tab === "artifacts" && <Artifacts pageRef={pageRef} />}
          </section>
        </aside>
      </div>
    </>
  );
}
