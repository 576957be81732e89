import { notFound } from "next/navigation";
import { AccountPage } from "~/components/account-page";
import { Members } from "~/components/members";
import { signedIn } from "~/server/session";

export const dynamic = "force-dynamic";

/** A workspace's members; its owners invite, change roles and remove here (issue 23 item 2). */
export default async function MembersPage({ params }: { params: Promise<{ workspaceId: string }> }) {
  const { workspaceId } = await params;
  const { caller, me } = await signedIn(`/w/${workspaceId}/members`);
  const workspace = me.workspaces.find((w) => w.id === workspaceId);
  if (!workspace) notFound();
  const initial = await caller.panel.members.list({ workspaceId });
  return (
    <AccountPage me={me} title={`Members of ${workspace.name}`}>
      <Members workspaceId={workspaceId} workspaceName={workspace.name} initial={initial} />
    </AccountPage>
  );
}
