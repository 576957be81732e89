import { AccountPage } from "~/components/account-page";
import { ConnectAgent } from "~/components/connect-agent";
import { signedIn } from "~/server/session";

export const dynamic = "force-dynamic";

/** "Connect an agent": the signed-in person's agent tokens (issue 23 item 3). */
export default async function Agents() {
  const { caller, me } = await signedIn("/agents");
  const tokens = await caller.panel.agents.list();
  return (
    <AccountPage me={me} title="Connect an agent">
      <p className="muted">
        An agent token lets software act for you — Hermes through the mnote plugin (<code>MNOTE_TOKEN</code>), an MCP
        client, a script. It works only at the bridge, never here in the panel, and where a workspace holds agent writes
        for approval, its page writes wait for you under Suggestions.
      </p>
      <ConnectAgent initial={tokens} sessionScopes={me.scopes} />
    </AccountPage>
  );
}
