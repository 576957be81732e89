import Link from "next/link";
import { notFound, redirect } from "next/navigation";
import { Members } from "~/components/members";
import { SignOutButton } from "~/components/sign-out";
import { serverCaller } from "~/server/session";

export const dynamic = "force-dynamic";

/** A workspace's members; its owners invite, change roles and remove here (issue 23 item 2). */
export default async function MembersPage({ params }: { params: Promise<{ workspaceId: string }> }) {
  const { workspaceId } = await params;
  const caller = await serverCaller();
  const me = await caller.panel.session.me().catch(() => null);
  if (!me) redirect("/signin");
  const workspace = me.workspaces.find((w) => w.id === workspaceId);
  if (!workspace) notFound();
  const initial = await caller.panel.members.list({ workspaceId });
  return (
    <main className="home">
      <header className="topbar">
        <Link href="/" className="brand">
          mnote · page AI
        </Link>
        <span className="who">
          Signed in as <strong>{me.user?.name}</strong> <SignOutButton />
        </span>
      </header>
      <h1>Members of {workspace.name}</h1>
      <Members workspaceId={workspaceId} initial={initial} />
    </main>
  );
}
