import { safeReturnPath } from "@mnote/identity";
import { getKernel } from "~/server/kernel";
import { panelEnv } from "~/server/env";

export const dynamic = "force-dynamic";

/**
 * Why a sign-in did not work, in words, by the key the server sent back. The token keys are the server's own
 * verdict (`checkPersonSignIn`), told only to whoever holds the token; nothing here names a command or a setting:
 * a person is told what they can do and whom to ask.
 */
const ERRORS: Record<string, string> = {
  token_malformed: "That is not an mnote token: an mnote token starts with mnt_. Paste the whole token you were given.",
  token_unknown:
    "mnote does not know that token. Check that you pasted all of it, or ask the person who runs mnote for your team for a new one.",
  token_revoked:
    "That token was revoked, so it no longer signs anyone in. Ask the person who runs mnote for your team for a new one.",
  token_expired:
    "That token has expired. Ask the person who runs mnote for your team for a new one, or sign in another way.",
  token_agent:
    "That is an agent token: it lets software such as Hermes act for you, and it does not sign in to the panel. Sign in with your person token instead.",
  user: "Pick a person from the list.",
  unknown_email:
    "Your identity provider signed you in, but no one in mnote has that email. Ask the person who runs mnote for your team to add you with this email. Nothing was created.",
  unverified_email:
    "Your identity provider has not verified your email, so mnote cannot tell who you are. Verify it there and sign in again. Nothing was created.",
  invalid_email:
    "Your identity provider vouched for an email address mnote does not accept (mnote takes plain ASCII addresses only), so you were not signed in. Ask your administrator. Nothing was created.",
  no_email:
    "Your identity provider sent no email address, so mnote cannot tell who you are. Ask your administrator to release the email claim to mnote.",
  oidc_state: "That sign-in link was already used or has expired. Sign in again.",
  oidc_provider_error: "The identity provider did not sign you in (cancelled or refused). Try again.",
  oidc_token: "The identity provider's answer did not pass mnote's checks, so you were not signed in. Try again.",
  oidc_unreachable: "The identity provider does not answer right now. Try again later.",
};

/**
 * Sign in with a person token; on the demo database, a picker of demo users too. `next` is the page the person was
 * opening: every form carries it, so any way of signing in lands there (only a page of this panel: `safeReturnPath`).
 */
export default async function SignIn({ searchParams }: { searchParams: Promise<{ error?: string; next?: string }> }) {
  const { error, next } = await searchParams;
  const returnTo = safeReturnPath(next);
  const returnField = returnTo ? <input type="hidden" name="next" value={returnTo} /> : null;
  // Only the demo's own users, and only on a database the demo created (MNOTE_DEV_SIGNIN_USERS).
  const demoUsers = panelEnv().devSignInUsers;
  const oidc = panelEnv().oidc !== null;
  const users =
    demoUsers.length > 0
      ? (await (await getKernel()).admin.listUsers()).filter((user) => demoUsers.includes(user.id))
      : [];
  return (
    <main className="signin">
      <h1>Sign in to the page-AI panel</h1>
      {error && (
        <p role="alert" className="error">
          {ERRORS[error] ?? "Sign-in did not work. Try again."}
        </p>
      )}
      {users.length > 0 && (
        <section className="card" aria-labelledby="dev-signin">
          <h2 id="dev-signin">Demo users</h2>
          <p className="muted">
            This is a demo: pick who you want to be, no password needed. You stay signed in for 12 hours.
          </p>
          <form method="post" action="/api/session/dev" className="row">
            {returnField}
            <label htmlFor="userId">User</label>
            <select id="userId" name="userId" defaultValue={users[0]?.id}>
              {users.map((user) => (
                <option key={user.id} value={user.id}>
                  {user.name}
                </option>
              ))}
            </select>
            <button type="submit" className="primary">
              Sign in
            </button>
          </form>
        </section>
      )}
      {oidc && (
        <section className="card" aria-labelledby="oidc-signin">
          <h2 id="oidc-signin">With your organization's account</h2>
          <form method="post" action="/api/auth/oidc/start" className="row">
            {returnField}
            <button type="submit" className="primary">
              Sign in with your identity provider
            </button>
          </form>
        </section>
      )}
      <section className="card" aria-labelledby="token-signin">
        <h2 id="token-signin">With a token</h2>
        <form method="post" action="/api/session" className="row">
          {returnField}
          <label htmlFor="token">Person token</label>
          <input id="token" name="token" type="password" autoComplete="off" placeholder="mnt_…" required />
          <button type="submit">Sign in with token</button>
        </form>
      </section>
    </main>
  );
}
