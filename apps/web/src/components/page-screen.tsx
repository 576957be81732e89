"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useCallback, useMemo, useRef, useState } from "react";
import { useTRPC } from "~/trpc/react";
import { Artifacts } from "./artifacts";
import { CommentMarginContext, Comments, usePageComments } from "./comments";
import { AskHermes } from "./ask-hermes";
import type { Me } from "~/trpc/types";
import { AuditTrail } from "./audit-trail";
import { BlockFocusContext, type BlockTarget } from "./block-focus";
import { useConfirmation } from "./confirm-dialog";
import { PageBody, type PageBodyHandle } from "./page-body";
import { PolicyHistory } from "./policy-history";
import { PageHeading, PageSuggestionsFor, SuggestionSwitcher } from "./page-suggestions";
import { Proposals } from "./proposals";
import { ReviewProvider, useShownProposal } from "./review-state";
import { ReviewShortcuts } from "./review-shortcuts";
import { SignOutButton } from "./sign-out";
import { usePageChanges } from "./use-page-changes";

const TABS = ["proposals", "comments", "audit", "artifacts"] as const;
type Tab = (typeof TABS)[number];
const TAB_LABELS: Record<Tab, string> = {
  proposals: "Suggestions",
  comments: "Comments",
  audit: "Audit trail",
  artifacts: "Artifacts",
};

/** The page beside its AI panel; the review state is shared by both (review-state.tsx). */
export function PageScreen(props: Parameters<typeof PageScreenBody>[0]) {
  return (
    <ReviewProvider>
      <PageScreenBody {...props} />
    </ReviewProvider>
  );
}

function PageScreenBody({
  workspaceId,
  documentId,
  cursor,
  me,
}: {
  workspaceId: string;
  documentId: string;
  /** The page's change cursor, read on the server before the data this screen starts from. */
  cursor: string;
  me: Me;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const pageRef = { workspaceId, documentId };
  const [tab, setTab] = useState<Tab>("proposals");
  const tabPanel = useRef<HTMLElement>(null);
  // After a revert is proposed its button is gone: focus goes to the Suggestions panel, where the revert waits.
  const showProposals = () => {
    setTab("proposals");
    requestAnimationFrame(() => tabPanel.current?.focus());
  };
  const view = useQuery(trpc.panel.page.view.queryOptions(pageRef));
  const proposals = useQuery(trpc.panel.proposals.list.queryOptions(pageRef));

  // Live by push: the page's change stream invalidates these queries (use-page-changes.ts).
  usePageChanges(pageRef, cursor);

  const setApproval = useMutation(
    trpc.panel.workspace.setApproval.mutationOptions({
      onSuccess: () => queryClient.invalidateQueries({ queryKey: trpc.panel.pathKey() }),
    }),
  );

  // The block a focused change points at: highlighted and scrolled into view in the page beside the panel
  // (only the blocks on screen exist: the page view scrolls its virtualizer to it).
  const [highlighted, setHighlighted] = useState<string | null>(null);
  const pageBody = useRef<PageBodyHandle>(null);
  const blockIds = useRef<string[]>([]);
  blockIds.current = view.data?.blocks.map((b) => b.id) ?? [];
  const focusBlock = useCallback((target: BlockTarget | null) => {
    const ids = blockIds.current;
    const id =
      target === null
        ? null
        : "blockId" in target && ids.includes(target.blockId)
          ? target.blockId
          : "position" in target
            ? (ids[Math.min(target.position, ids.length - 1)] ?? null)
            : null;
    setHighlighted(id);
    if (id !== null) pageBody.current?.scrollToBlock(id);
  }, []);
  const shown = useShownProposal(proposals.data);
  // Comment threads: in the page's margin beside their blocks, and in the Comments tab (one read for both).
  const comments = usePageComments(pageRef);
  const [focusThread, setFocusThread] = useState<string | null>(null);
  const [newThreadOn, setNewThreadOn] = useState<string | null>(null);
  const margin = useMemo(() => {
    const byBlock = new Map<string, NonNullable<typeof comments.data>["threads"]>();
    for (const thread of comments.data?.threads ?? []) {
      if (thread.resolved || thread.anchor.detached) continue;
      byBlock.set(thread.anchor.blockId, [...(byBlock.get(thread.anchor.blockId) ?? []), thread]);
    }
    return {
      threadsOn: (blockId: string) => byBlock.get(blockId) ?? [],
      show: (threadId: string) => {
        setFocusThread(threadId);
        setTab("comments");
      },
      mayComment: comments.data?.mayReply ?? false,
      startOn: (blockId: string) => {
        setNewThreadOn(blockId);
        setTab("comments");
      },
    };
  }, [comments.data]);
  const openThreads = comments.data?.threads.filter((t) => !t.resolved).length ?? 0;

  if (view.isPending) return <main className="loading">Loading…</main>;
  if (view.isError)
    return (
      <main className="signin">
        <p role="alert" className="error">
          {view.error.message}{" "}
          <button type="button" className="small" onClick={() => void view.refetch()}>
            Retry
          </button>
        </p>
      </main>
    );
  const { page, blocks, role, workspace } = view.data;
  const pending = proposals.data?.filter((p) => p.status === "pending").length ?? 0;

  return (
    <BlockFocusContext.Provider value={focusBlock}>
      <CommentMarginContext.Provider value={margin}>
        {pending > 0 && (
          <a
            className="pending-bar"
            href="#page-ai"
            data-testid="pending-bar"
            onClick={(event) => {
              // Straight to the suggestions (on a phone the policy and Ask Hermes sit above them), not the panel's top.
              event.preventDefault();
              setTab("proposals");
              requestAnimationFrame(() => {
                tabPanel.current?.scrollIntoView({ block: "start" });
                tabPanel.current?.focus({ preventScroll: true });
              });
            }}
          >
            {pending} pending — Review
          </a>
        )}
        <header className="topbar">
          <nav aria-label="Breadcrumb" className="crumbs">
            <Link href="/">mnote</Link> / <span>{workspace.name}</span> / <span aria-current="page">{page.title}</span>
          </nav>
          <span className="who">
            {me.user?.name} ({role}) <SignOutButton />
          </span>
        </header>
        <div className="layout">
          <main
            className={`page${page.options.wideLayout ? " wide" : ""}${page.options.smallText ? " small-text" : ""}`}
          >
            <PageHeading
              page={page}
              proposal={shown}
              pageRef={pageRef}
              meta={
                <>
                  <span data-testid="page-revision">Revision {page.revision}</span>
                  {page.isPrivate && <span className="badge muted-badge">private</span>}
                </>
              }
            />
            {page.options.showToc && (
              <nav aria-label="Table of contents" className="toc">
                <ul>
                  {blocks
                    .filter((b) => b.type === "heading")
                    .map((b) => (
                      <li key={b.id}>{b.text}</li>
                    ))}
                </ul>
              </nav>
            )}
            <SuggestionSwitcher pending={proposals.data ?? []} shown={shown} />
            {/* Focusable so a finished in-page review hands the focus back to the page, not to <body>. */}
            <div className="blocks" data-testid="page-blocks" tabIndex={-1}>
              {shown ? (
                <PageSuggestionsFor
                  proposal={shown}
                  pageRef={pageRef}
                  blocks={blocks}
                  highlighted={highlighted}
                  handle={pageBody}
                />
              ) : (
                <PageBody blocks={blocks} highlighted={highlighted} suggestions={null} handle={pageBody} />
              )}
            </div>
          </main>
          <aside className="ai-panel" aria-label="Page AI" id="page-ai" tabIndex={-1}>
            <h2>Page AI</h2>
            <ApprovalPolicy
              workspace={workspace}
              mayChange={view.data.mayChangeApproval}
              busy={setApproval.isPending}
              onChange={(policy) => setApproval.mutate({ workspaceId, ...policy })}
            />
            <AskHermes pageRef={pageRef} canWrite={view.data.canWrite} />
            <ReviewShortcuts proposal={shown} pageRef={pageRef} />
            <PanelTabs tab={tab} onSelect={setTab} pending={pending} openThreads={openThreads} />
            <section
              ref={tabPanel}
              role="tabpanel"
              id={`panel-${tab}`}
              aria-labelledby={`tab-${tab}`}
              className="tabpanel"
              tabIndex={0}
            >
              {tab === "proposals" && <Proposals pageRef={pageRef} />}
              {tab === "comments" && (
                <Comments
                  pageRef={pageRef}
                  blocks={blocks}
                  canAsk={view.data.canWrite}
                  focusThread={focusThread}
                  newThreadOn={newThreadOn}
                  onNewThreadDone={(threadId) => {
                    setNewThreadOn(null);
                    // Posted: the new thread has the focus; cancelled: the tab panel (never <body>).
                    if (threadId) setFocusThread(threadId);
                    else tabPanel.current?.focus({ preventScroll: true });
                  }}
                />
              )}
              {tab === "audit" && <AuditTrail pageRef={pageRef} onReverted={showProposals} />}
              {tab === "artifacts" && <Artifacts pageRef={pageRef} />}
            </section>
          </aside>
        </div>
      </CommentMarginContext.Provider>
    </BlockFocusContext.Provider>
  );
}

/**
 * The workspace's approval policy, said as what it is: one rule for every page of the workspace, not this page's
 * setting. Owners switch it here; turning approval off (agents' edits then apply unreviewed) asks first, turning it
 * on does not. Everyone else reads it.
 */
function ApprovalPolicy({
  workspace,
  mayChange,
  busy,
  onChange,
}: {
  workspace: { id: string; name: string; approvalRequired: boolean; holdArtifacts: boolean };
  mayChange: boolean;
  busy: boolean;
  onChange: (policy: { approvalRequired: boolean; holdArtifacts?: boolean }) => void;
}) {
  const confirmation = useConfirmation();
  if (!mayChange)
    return (
      <p className="muted policy" data-testid="approval-policy">
        {workspace.approvalRequired ? "Agent edits wait for approval" : "Agent edits apply directly"}
        {workspace.approvalRequired && workspace.holdArtifacts ? ", and so do summaries and AI notes," : ""} on every
        page of {workspace.name}.
      </p>
    );
  return (
    <fieldset className="policy" data-testid="approval-policy">
      <legend>For every page of {workspace.name}</legend>
      <label className="inline">
        <input
          type="checkbox"
          checked={workspace.approvalRequired}
          disabled={busy}
          onChange={(e) => {
            if (e.target.checked) return onChange({ approvalRequired: true });
            confirmation.ask({
              title: `Let agent edits apply without approval in ${workspace.name}?`,
              body: (
                <p>
                  Agents&apos; edits to every page of {workspace.name}, not only this one, will apply at once, with no
                  one reviewing them first. You can turn approval on again at any time.
                </p>
              ),
              confirm: "Let edits apply directly",
              onConfirm: () => onChange({ approvalRequired: false }),
            });
          }}
        />{" "}
        Agent edits wait for approval
      </label>
      <label className="inline" data-testid="hold-artifacts">
        <input
          type="checkbox"
          checked={workspace.holdArtifacts}
          disabled={busy || !workspace.approvalRequired}
          onChange={(e) => onChange({ approvalRequired: workspace.approvalRequired, holdArtifacts: e.target.checked })}
        />{" "}
        Summaries and AI notes wait too
      </label>
      <PolicyHistory workspaceId={workspace.id} />
      {confirmation.dialog}
    </fieldset>
  );
}

/**
 * The WAI-ARIA tabs pattern: one tab in the Tab order (roving tabindex), arrow keys and Home/End move
 * between tabs and select them (automatic activation: each panel is cheap to show).
 */
function PanelTabs({
  tab,
  onSelect,
  pending,
  openThreads,
}: {
  tab: Tab;
  onSelect: (tab: Tab) => void;
  pending: number;
  openThreads: number;
}) {
  const refs = useRef<Partial<Record<Tab, HTMLButtonElement | null>>>({});
  const move = (to: Tab) => {
    onSelect(to);
    refs.current[to]?.focus();
  };
  const onKeyDown = (event: React.KeyboardEvent) => {
    const at = TABS.indexOf(tab);
    const next =
      event.key === "ArrowRight"
        ? TABS[(at + 1) % TABS.length]
        : event.key === "ArrowLeft"
          ? TABS[(at - 1 + TABS.length) % TABS.length]
          : event.key === "Home"
            ? TABS[0]
            : event.key === "End"
              ? TABS[TABS.length - 1]
              : undefined;
    if (!next) return;
    event.preventDefault();
    move(next);
  };
  return (
    <div role="tablist" aria-label="Page AI views" className="tabs" onKeyDown={onKeyDown}>
      {TABS.map((t) => (
        <button
          key={t}
          ref={(el) => {
            refs.current[t] = el;
          }}
          type="button"
          role="tab"
          id={`tab-${t}`}
          aria-selected={tab === t}
          aria-controls={`panel-${t}`}
          tabIndex={tab === t ? 0 : -1}
          onClick={() => onSelect(t)}
        >
          {TAB_LABELS[t]}
          {t === "proposals" && pending > 0 && (
            <span className="count">
              <span className="sr-only"> (</span>
              {pending}
              <span className="sr-only"> pending)</span>
            </span>
          )}
          {t === "comments" && openThreads > 0 && (
            <span className="count">
              <span className="sr-only"> (</span>
              {openThreads}
              <span className="sr-only"> open)</span>
            </span>
          )}
        </button>
      ))}
    </div>
  );
}
