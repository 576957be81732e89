import { getKernel } from "~/server/kernel";
import { panelEnv } from "~/server/env";

export const dynamic = "force-dynamic";

const ERRORS: Record<string, string> = {
  token: "That token is not a valid person token. Create one with `mnote admin token create --holder person`.",
  user: "Pick a user from the list.",
  unknown_email:
    "Your identity provider signed you in, but no mnote user has that email. Ask an operator to add you (mnote admin user create --email, or user set-email). Nothing was created.",
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

/** Sign in with a person token; on the demo database, a picker of demo users too. */
export default async function SignIn({ searchParams }: { searchParams: Promise<{ error?: string }> }) {
  const { error } = await searchParams;
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
          {ERRORS[error] ?? "Sign-in failed."}
        </p>
      )}
      {users.length > 0 && (
        <section className="card" aria-labelledby="dev-signin">
          <h2 id="dev-signin">Demo users</h2>
          <p className="muted">Development sign-in: issues a 12-hour person token for the chosen user.</p>
          <form method="post" action="/api/session/dev" className="row">
            <label htmlFor="userId">User</label>
            <select id="userId" name="userId" defaultValue={users[0]?.id}>
              {users.map((user) => (
                <option key={user.id} value={user.id}>
                  {user.name} ({user.id})
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
            <button type="submit" className="primary">
              Sign in with your identity provider
            </button>
          </form>
        </section>
      )}
      <section className="card" aria-labelledby="token-signin">
        <h2 id="token-signin">With a token</h2>
        <form method="post" action="/api/session" className="row">
          <label htmlFor="token">Person token</label>
          <input id="token" name="token" type="password" autoComplete="off" placeholder="mnt_…" required />
          <button type="submit">Sign in with token</button>
        </form>
      </section>
    </main>
  );
}
