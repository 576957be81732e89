import { notFound, redirect } from "next/navigation";
import { PageScreen } from "~/components/page-screen";
import { serverCaller, signInPath } from "~/server/session";
import { safeReturnPath } from "@mnote/identity";
import { getQueryClient, HydrateClient, trpc } from "~/trpc/server";

export const dynamic = "force-dynamic";

export default async function PagePage({ params }: { params: Promise<{ workspaceId: string; documentId: string }> }) {
  const { workspaceId, documentId } = await params;
  const caller = await serverCaller();
  const me = await caller.panel.session.me().catch(() => null);
  // Signed out: sign in, then back to this page (not home).
  if (!me) redirect(signInPath({ returnTo: safeReturnPath(`/w/${workspaceId}/p/${documentId}`) }));
  const pageRef = { workspaceId, documentId };
  // The change cursor is read before the page: the live stream starts from it, so a change landing between
  // these reads and the stream's start reaches the panel as a change (decision 0017).
  const activity = await caller.panel.page.activity(pageRef).catch(() => null);
  if (!activity) notFound();
  const queryClient = getQueryClient();
  // The page and its proposals are read here, awaited, so the first HTML shows them (not "Loading…") and the
  // browser starts from this data instead of asking again. A page the person may not read is a 404, exactly
  // like a page that does not exist.
  const [view] = await Promise.all([
    queryClient.fetchQuery({ ...trpc.panel.page.view.queryOptions(pageRef), retry: false }).catch(() => null),
    queryClient.prefetchQuery({ ...trpc.panel.proposals.list.queryOptions(pageRef), retry: false }),
  ]);
  if (!view) notFound();
  return (
    <HydrateClient>
      <PageScreen workspaceId={workspaceId} documentId={documentId} cursor={activity.cursor} me={me} />
    </HydrateClient>
  );
}
