import Link from "next/link";
import { redirect } from "next/navigation";
import { ConnectAgent } from "~/components/connect-agent";
import { SignOutButton } from "~/components/sign-out";
import { serverCaller } from "~/server/session";

export const dynamic = "force-dynamic";

/** "Connect an agent": the signed-in person's agent tokens (issue 23 item 3). */
export default async function Agents() {
  const caller = await serverCaller();
  const me = await caller.panel.session.me().catch(() => null);
  if (!me) redirect("/signin");
  const tokens = await caller.panel.agents.list();
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
      <h1>Connect an agent</h1>
      <p className="muted">
        An agent token lets software act for you — Hermes through the mnote plugin (<code>MNOTE_TOKEN</code>), an MCP
        client, a script. It works only at the bridge, never here in the panel, and where a workspace holds agent writes
        for approval, its page writes wait for you under Proposals.
      </p>
      <ConnectAgent initial={tokens} sessionScopes={me.scopes} />
    </main>
  );
}
