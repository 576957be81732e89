import Link from "next/link";
import { redirect } from "next/navigation";
import { Invitations } from "~/components/invitations";
import { ProposedPages } from "~/components/proposed-pages";
import { SignOutButton } from "~/components/sign-out";
import { serverCaller } from "~/server/session";

export const dynamic = "force-dynamic";

/** Home: the signed-in person's workspaces, the pages they may read, and which of them wait for a decision. */
export default async function Home() {
  const caller = await serverCaller();
  const me = await caller.panel.session.me().catch(() => null);
  if (!me) redirect("/signin");
  const invitations = await caller.panel.invitations.list();
  const workspaces = await Promise.all(
    me.workspaces.map(async (workspace) => ({
      workspace,
      pages: await caller.panel.pages.list({ workspaceId: workspace.id }),
      // An agent's held new pages: they have no page of their own to wait on yet (decision 0046).
      proposed: await caller.panel.pages.proposed({ workspaceId: workspace.id }),
    })),
  );
  return (
    <main className="home">
      <header className="topbar">
        <span className="brand">mnote · page AI</span>
        <span className="who">
          <Link href="/agents">Connect an agent</Link> · Signed in as <strong>{me.user?.name}</strong> <SignOutButton />
        </span>
      </header>
      <h1>Your pages</h1>
      <Invitations initial={invitations} />
      {workspaces.map(({ workspace, pages, proposed }) => (
        <section key={workspace.id} className="card" aria-labelledby={`ws-${workspace.id}`}>
          <h2 id={`ws-${workspace.id}`}>
            {workspace.name} <span className="muted">({workspace.role})</span>{" "}
            <Link href={`/w/${encodeURIComponent(workspace.id)}/members`} className="muted">
              Members
            </Link>
          </h2>
          <ul className="page-list">
            {pages.map((page) => (
              <li key={page.id}>
                <Link href={`/w/${encodeURIComponent(workspace.id)}/p/${encodeURIComponent(page.id)}`}>
                  {page.title}
                </Link>{" "}
                {page.pendingProposals > 0 && (
                  <span className="badge warn" data-testid="pending-proposals">
                    {page.pendingProposals} {page.pendingProposals === 1 ? "suggestion" : "suggestions"} to review
                  </span>
                )}{" "}
                {/* The glossary's words: a suggestion waits for review; the page version is no reader's business. */}
                {(page.isPrivate || !page.canWrite) && (
                  <span className="muted">
                    {[page.isPrivate && "private", !page.canWrite && "read only"].filter(Boolean).join(" · ")}
                  </span>
                )}
              </li>
            ))}
            {pages.length === 0 && <li className="muted">No pages you can read.</li>}
          </ul>
          <ProposedPages workspaceId={workspace.id} initial={proposed} />
        </section>
      ))}
    </main>
  );
}
