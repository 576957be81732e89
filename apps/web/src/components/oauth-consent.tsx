import type { ConsentClient, ConsentRefusal } from "@mnote/tools";
import Link from "next/link";

/**
 * The consent page's views (decision 0027): what an agent asks for, for whom, and where the answer goes. Plain server
 * components; the two forms post to the panel's OAuth routes. Every client here is anonymous, so the page says how
 * the client is known and names the host its answer goes to (MCP authorization, "Localhost Redirect URI Risks").
 */

const SCOPE_WORDS: Record<string, string> = {
  "page.read": "read the pages you can read",
  "page.write": "edit the pages you can edit (held for approval where your workspace asks for it)",
  "artifact.write": "add AI notes and summaries to pages",
};

const LOOPBACK = new Set(["127.0.0.1", "[::1]", "localhost"]);

/** Where the answer goes, and what that host is. */
function Destination({ client }: { client: ConsentClient }) {
  const host = new URL(client.redirectUri).host;
  const local = LOOPBACK.has(new URL(client.redirectUri).hostname);
  return (
    <p>
      The answer goes to <code data-testid="oauth-redirect">{client.redirectUri}</code> —{" "}
      {local ? (
        <>
          a program on <strong>this computer</strong> ({host}). Continue only if you just started the agent here.
        </>
      ) : (
        <>
          the site <strong>{host}</strong>.
        </>
      )}
    </p>
  );
}

/** How mnote knows the client: neither way vouches for its name. */
function Provenance({ client }: { client: ConsentClient }) {
  return client.kind === "document" ? (
    <p className="muted">
      It describes itself in a document published at <strong>{new URL(client.id).host}</strong> (
      <code>{client.id}</code>). mnote cannot vouch for the name it gives.
    </p>
  ) : (
    <p className="muted">It registered itself with mnote; mnote cannot vouch for the name it gives.</p>
  );
}

export interface Consent {
  requestSecret: string;
  client: ConsentClient;
  person: string;
  workspaces: Array<{ id: string; name: string; role: string | null }>;
  scopes: string[];
  resource: string;
}

export function ConsentForm({ consent }: { consent: Consent }) {
  const { client } = consent;
  return (
    <main className="signin">
      <h1>
        Connect <span data-testid="oauth-client">{client.name}</span> to mnote?
      </h1>
      <section className="card">
        <p>
          <strong>{client.name}</strong> asks to act for you, <strong>{consent.person}</strong>, as an agent. Its writes
          follow each workspace&apos;s approval policy, as every agent&apos;s do.
        </p>
        <Provenance client={client} />
        <Destination client={client} />
        <h2>In your workspaces</h2>
        <ul data-testid="oauth-workspaces">
          {consent.workspaces.length ? (
            consent.workspaces.map((workspace) => (
              <li key={workspace.id}>
                <strong>{workspace.name}</strong> <span className="muted">({workspace.role ?? "member"})</span>
              </li>
            ))
          ) : (
            <li>none yet: it can reach nothing until you join a workspace</li>
          )}
        </ul>
        <h2>It may</h2>
        <ul data-testid="oauth-scopes">
          {consent.scopes.map((scope) => (
            <li key={scope}>
              <code>{scope}</code> — {SCOPE_WORDS[scope] ?? scope}
            </li>
          ))}
        </ul>
        <p className="muted">
          Its tokens work only at <code>{consent.resource}</code>. You can revoke it any time under{" "}
          <Link href="/agents">Connect an agent</Link>.
        </p>
        <form method="post" action="/oauth/authorize/decision" className="row">
          <input type="hidden" name="request" value={consent.requestSecret} />
          <button type="submit" name="decision" value="approve" className="primary">
            Allow
          </button>
          <button type="submit" name="decision" value="deny">
            Deny
          </button>
        </form>
      </section>
    </main>
  );
}

/** Signed out: the request passed every check; it waits for the person while they sign in. */
export function SignInToContinue({ client, request }: { client: ConsentClient; request: string }) {
  return (
    <main className="signin">
      <h1>Sign in to connect an agent</h1>
      <section className="card">
        <p>
          <strong>{client.name}</strong> asks to act for you in mnote. Sign in; you come back here to decide.
        </p>
        <Provenance client={client} />
        <Destination client={client} />
        <form method="post" action="/oauth/authorize/sign-in" className="row">
          <input type="hidden" name="request" value={request} />
          <button type="submit" className="primary">
            Sign in
          </button>
        </form>
      </section>
    </main>
  );
}

/** A request that failed a check, on the panel's own page: nothing was granted and nothing was sent anywhere. */
export function OAuthRefusal({ error, description }: { error: string; description: string }) {
  return (
    <main className="signin">
      <h1>The agent&apos;s request was refused</h1>
      <section className="card" role="alert">
        <p>
          <code data-testid="oauth-error">{error}</code>: {description}
        </p>
        <p>
          Nothing was granted, and you were not sent anywhere. <Link href="/">Back to mnote</Link>
        </p>
      </section>
    </main>
  );
}

const REFUSALS: Record<ConsentRefusal | "cross_site" | "form" | "signed_out", string> = {
  missing: "The consent form is missing its request.",
  unknown: "This consent form is not one mnote opened.",
  used: "This consent was already answered.",
  expired: "This consent page expired; start again from the agent.",
  foreign_session: "This consent form is not one this session opened.",
  cross_site: "Cross-site consent refused: answer on mnote's own page.",
  form: "The consent form's answer is Allow or Deny.",
  signed_out: "Sign in again, then start again from the agent.",
};

/** The sentence for a refused consent form's reason (an unknown reason gets a general one). */
export const refusalSentence = (reason: string | undefined) =>
  (reason && REFUSALS[reason as keyof typeof REFUSALS]) || "The consent form was refused.";
