import { notFound, redirect } from "next/navigation";
import { PageScreen } from "~/components/page-screen";
import { serverCaller } from "~/server/session";

export const dynamic = "force-dynamic";

export default async function PagePage({ params }: { params: Promise<{ workspaceId: string; documentId: string }> }) {
  const { workspaceId, documentId } = await params;
  const caller = await serverCaller();
  const me = await caller.panel.session.me().catch(() => null);
  if (!me) redirect("/signin");
  // A page the person may not read is a 404, exactly like a page that does not exist.
  const view = await caller.panel.page.view({ workspaceId, documentId }).catch(() => null);
  if (!view) notFound();
  return (
    <PageScreen
      workspaceId={workspaceId}
      documentId={documentId}
      me={{ userId: me.user!.id, name: me.user!.name, tokenId: me.tokenId, scopes: me.scopes }}
    />
  );
}
