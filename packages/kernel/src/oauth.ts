import { auditMonth } from "./audit-partitions";
import { type Clock, isoAfter } from "./clock";
import { hashToken, newId, newTokenSecret } from "./ids";
import type { SqlDriver, SqlExecutor } from "./sql/driver";
import type { Capability } from "@mnote/contract";

/** A client that registered itself (RFC 7591): public, no secret; PKCE is its proof. */
export interface OAuthClientRecord {
  clientId: string;
  clientName: string;
  redirectUris: string[];
  scope: string | null;
  createdAt: string;
}

/** An authorization request a signed-in person is looking at on the consent page. */
export interface OAuthRequestInput {
  sessionTokenId: string;
  userId: string;
  clientId: string;
  redirectUri: string;
  codeChallenge: string;
  resource: string;
  scopes: Capability[];
  state: string | null;
  ttlSeconds: number;
}

/** Where the person's decision sends the browser: the client's redirect URI with a code, or with a refusal. */
export type OAuthDecision =
  | { ok: true; approved: true; redirectUri: string; state: string | null; code: string }
  | { ok: true; approved: false; redirectUri: string; state: string | null }
  | { ok: false; reason: "unknown" | "used" | "expired" | "foreign_session" };

/** The standard errors of the token endpoint this kernel can decide (RFC 6749 §5.2, RFC 8707). */
export type OAuthGrantError = { error: "invalid_grant" | "invalid_target"; description: string };

export interface OAuthTokenPair {
  accessToken: string;
  refreshToken: string;
  expiresIn: number;
  scopes: Capability[];
  tokenId: string;
}

export interface OAuthTokenLifetimes {
  accessTtlSeconds: number;
  refreshTtlSeconds: number;
}

export interface KernelOAuth {
  registerClient(input: {
    clientName: string;
    redirectUris: string[];
    scope: string | null;
  }): Promise<OAuthClientRecord>;
  getClient(clientId: string): Promise<OAuthClientRecord | null>;
  /** Opens the request and answers its secret: the consent form carries it (it is the form's CSRF token). */
  openRequest(input: OAuthRequestInput): Promise<{ requestSecret: string }>;
  /**
   * The person's answer, once: the request must be open, unexpired and opened by this session (a form posted with
   * another session's request is refused). Approving mints a single-use code of `codeTtlSeconds`.
   */
  decideRequest(input: {
    requestSecret: string;
    sessionTokenId: string;
    approve: boolean;
    codeTtlSeconds: number;
  }): Promise<OAuthDecision>;
  /**
   * Redeems a code, once. `check` sees the request (client, redirect URI, PKCE challenge, resource) and answers a
   * refusal or null. A request `check` refuses changes nothing: the code stays good for its own client and verifier,
   * so a thief holding a stolen code but not the verifier cannot spend it (decision 0027). A code presented again by
   * a request that passes `check` revokes the grant it made (RFC 6749 §4.1.2).
   */
  redeemCode(
    input: {
      code: string;
      check: (request: {
        clientId: string;
        redirectUri: string;
        codeChallenge: string;
        resource: string;
      }) => Promise<OAuthGrantError | null> | OAuthGrantError | null;
      label: string;
    } & OAuthTokenLifetimes,
  ): Promise<OAuthTokenPair | OAuthGrantError>;
  /**
   * Rotates a refresh token: the old one is spent, the grant's access secret replaced. A refresh token presented a
   * second time revokes the grant and every refresh token of it.
   */
  refresh(
    input: { refreshToken: string; clientId: string; resource: string | null } & OAuthTokenLifetimes,
  ): Promise<OAuthTokenPair | OAuthGrantError>;
  /** The resource a token is bound to (RFC 8707), or null for a token minted by the CLI or the panel. */
  tokenResource(tokenId: string): Promise<string | null>;
  /**
   * Removes what can no longer grant or guard anything, as of `now`: refresh tokens past their expiry; consent
   * requests a day past theirs whose grant keeps no refresh token (a redeemed one stays while its grant lives, so a
   * code presented again still revokes it); registrations a day old that no request or token names. Registration is
   * anonymous (RFC 7591), so without this a client that registers and walks away stays forever.
   */
  purgeExpired(now: Date): Promise<{ refreshTokens: number; requests: number; clients: number }>;
}

/** How long a spent or abandoned consent request, and a registration nothing uses, is kept. */
export const OAUTH_LEFTOVER_GRACE_MS = 24 * 60 * 60 * 1000;

interface ClientRow {
  client_id: string;
  client_name: string;
  redirect_uris: string;
  scope: string | null;
  created_at: string;
}

const toClient = (row: ClientRow): OAuthClientRecord => ({
  clientId: row.client_id,
  clientName: row.client_name,
  redirectUris: JSON.parse(row.redirect_uris) as string[],
  scope: row.scope,
  createdAt: row.created_at,
});

/**
 * The authorization server's records (decision 0027). Every secret it hands out (request, code, access and
 * refresh token) is a fresh `newTokenSecret` stored only as `hashToken`, as agent tokens are.
 */
export function createOAuth(db: SqlDriver, clock: Clock): KernelOAuth {
  const now = () => clock.now().toISOString();
  const later = (seconds: number) => isoAfter(clock, seconds * 1000);

  async function audit(tx: SqlExecutor, action: string, by: string, detail: Record<string, unknown>) {
    const at = now();
    await tx.run(
      `INSERT INTO audit_log (at, tool_name, effect, outcome, workspace_id, actor_id, detail, month)
       VALUES (?, ?, 'write', 'ok', NULL, ?, ?, ?)`,
      [at, `oauth.${action}`, by, JSON.stringify(detail), auditMonth(at)],
    );
  }

  /** Revokes a grant: its token and every refresh token of it. */
  async function revokeGrant(tx: SqlExecutor, tokenId: string, why: string) {
    const at = now();
    await tx.run(`UPDATE tokens SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL`, [at, tokenId]);
    await tx.run(`UPDATE oauth_refresh_tokens SET used_at = ? WHERE token_id = ? AND used_at IS NULL`, [at, tokenId]);
    const owner = await tx.get<{ user_id: string }>(`SELECT user_id FROM tokens WHERE id = ?`, [tokenId]);
    if (owner) await audit(tx, "grant.revoke", owner.user_id, { tokenId, why });
  }

  async function newRefreshToken(tx: SqlExecutor, tokenId: string, ttlSeconds: number) {
    const refreshToken = newTokenSecret();
    await tx.run(
      `INSERT INTO oauth_refresh_tokens (token_hash, token_id, created_at, expires_at, used_at) VALUES (?, ?, ?, ?, NULL)`,
      [hashToken(refreshToken), tokenId, now(), later(ttlSeconds)],
    );
    return refreshToken;
  }

  return {
    async registerClient({ clientName, redirectUris, scope }) {
      const record: OAuthClientRecord = {
        clientId: newId("oac"),
        clientName,
        redirectUris: [...redirectUris],
        scope,
        createdAt: now(),
      };
      await db.transaction(async (tx) => {
        await tx.run(
          `INSERT INTO oauth_clients (client_id, client_name, redirect_uris, scope, created_at) VALUES (?, ?, ?, ?, ?)`,
          [record.clientId, clientName, JSON.stringify(record.redirectUris), scope, record.createdAt],
        );
      });
      return record;
    },
    async getClient(clientId) {
      const row = await db.get<ClientRow>(
        `SELECT client_id, client_name, redirect_uris, scope, created_at FROM oauth_clients WHERE client_id = ?`,
        [clientId],
      );
      return row ? toClient(row) : null;
    },
    async openRequest(input) {
      const requestSecret = newTokenSecret();
      await db.transaction(async (tx) => {
        await tx.run(
          `INSERT INTO oauth_requests (id, request_hash, code_hash, session_token_id, user_id, client_id, redirect_uri,
             code_challenge, resource, scopes, state, created_at, expires_at, decided_at, redeemed_at, token_id)
           VALUES (?, ?, NULL, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, NULL, NULL)`,
          [
            newId("oar"),
            hashToken(requestSecret),
            input.sessionTokenId,
            input.userId,
            input.clientId,
            input.redirectUri,
            input.codeChallenge,
            input.resource,
            JSON.stringify(input.scopes),
            input.state,
            now(),
            later(input.ttlSeconds),
          ],
        );
      });
      return { requestSecret };
    },
    async decideRequest({ requestSecret, sessionTokenId, approve, codeTtlSeconds }) {
      return db.transaction(async (tx): Promise<OAuthDecision> => {
        const row = await tx.get<{
          id: string;
          session_token_id: string;
          user_id: string;
          client_id: string;
          redirect_uri: string;
          state: string | null;
          scopes: string;
          expires_at: string;
          decided_at: string | null;
        }>(
          `SELECT id, session_token_id, user_id, client_id, redirect_uri, state, scopes, expires_at, decided_at
           FROM oauth_requests WHERE request_hash = ?${db.forUpdate}`,
          [hashToken(requestSecret)],
        );
        if (!row) return { ok: false, reason: "unknown" };
        if (row.session_token_id !== sessionTokenId) return { ok: false, reason: "foreign_session" };
        if (row.decided_at) return { ok: false, reason: "used" };
        if (row.expires_at <= now()) return { ok: false, reason: "expired" };
        const at = now();
        if (!approve) {
          await tx.run(`UPDATE oauth_requests SET decided_at = ? WHERE id = ?`, [at, row.id]);
          await audit(tx, "consent.deny", row.user_id, { clientId: row.client_id });
          return { ok: true, approved: false, redirectUri: row.redirect_uri, state: row.state };
        }
        const code = newTokenSecret();
        // The request's expiry becomes the code's: it is redeemed within codeTtlSeconds or never.
        await tx.run(`UPDATE oauth_requests SET decided_at = ?, code_hash = ?, expires_at = ? WHERE id = ?`, [
          at,
          hashToken(code),
          later(codeTtlSeconds),
          row.id,
        ]);
        await audit(tx, "consent.grant", row.user_id, {
          clientId: row.client_id,
          scopes: JSON.parse(row.scopes) as unknown,
        });
        return { ok: true, approved: true, redirectUri: row.redirect_uri, state: row.state, code };
      });
    },
    async redeemCode({ code, check, label, accessTtlSeconds, refreshTtlSeconds }) {
      return db.transaction(async (tx): Promise<OAuthTokenPair | OAuthGrantError> => {
        const row = await tx.get<{
          id: string;
          user_id: string;
          client_id: string;
          redirect_uri: string;
          code_challenge: string;
          resource: string;
          scopes: string;
          expires_at: string;
          redeemed_at: string | null;
          token_id: string | null;
        }>(
          `SELECT id, user_id, client_id, redirect_uri, code_challenge, resource, scopes, expires_at, redeemed_at, token_id
           FROM oauth_requests WHERE code_hash = ?${db.forUpdate}`,
          [hashToken(code)],
        );
        if (!row) return { error: "invalid_grant", description: "the authorization code is not valid" };
        // Whoever cannot prove the code is theirs (client, redirect URI, PKCE verifier, resource) changes nothing:
        // neither spends the code nor, once it was redeemed, revokes the grant it made.
        const refusal = await check({
          clientId: row.client_id,
          redirectUri: row.redirect_uri,
          codeChallenge: row.code_challenge,
          resource: row.resource,
        });
        if (refusal) return refusal;
        if (row.redeemed_at) {
          if (row.token_id) await revokeGrant(tx, row.token_id, "authorization code used twice");
          return { error: "invalid_grant", description: "the authorization code was already used" };
        }
        if (row.expires_at <= now()) return { error: "invalid_grant", description: "the authorization code expired" };
        await tx.run(`UPDATE oauth_requests SET redeemed_at = ? WHERE id = ?`, [now(), row.id]);
        const accessToken = newTokenSecret();
        const tokenId = newId("tok");
        const scopes = JSON.parse(row.scopes) as Capability[];
        await tx.run(
          `INSERT INTO tokens (id, user_id, holder, scopes, token_hash, label, created_at, expires_at, revoked_at,
             resource, oauth_client_id)
           VALUES (?, ?, 'agent', ?, ?, ?, ?, ?, NULL, ?, ?)`,
          [
            tokenId,
            row.user_id,
            JSON.stringify(scopes),
            hashToken(accessToken),
            label,
            now(),
            later(accessTtlSeconds),
            row.resource,
            row.client_id,
          ],
        );
        await tx.run(`UPDATE oauth_requests SET token_id = ? WHERE id = ?`, [tokenId, row.id]);
        const refreshToken = await newRefreshToken(tx, tokenId, refreshTtlSeconds);
        await audit(tx, "token.create", row.user_id, {
          tokenId,
          userId: row.user_id,
          holder: "agent",
          scopes,
          clientId: row.client_id,
          resource: row.resource,
        });
        return { accessToken, refreshToken, expiresIn: accessTtlSeconds, scopes, tokenId };
      });
    },
    async refresh({ refreshToken, clientId, resource, accessTtlSeconds, refreshTtlSeconds }) {
      return db.transaction(async (tx): Promise<OAuthTokenPair | OAuthGrantError> => {
        const row = await tx.get<{
          token_hash: string;
          token_id: string;
          expires_at: string;
          used_at: string | null;
        }>(
          `SELECT token_hash, token_id, expires_at, used_at FROM oauth_refresh_tokens WHERE token_hash = ?${db.forUpdate}`,
          [hashToken(refreshToken)],
        );
        if (!row) return { error: "invalid_grant", description: "the refresh token is not valid" };
        const token = await tx.get<{
          scopes: string;
          revoked_at: string | null;
          oauth_client_id: string | null;
          resource: string | null;
        }>(`SELECT scopes, revoked_at, oauth_client_id, resource FROM tokens WHERE id = ?${db.forUpdate}`, [
          row.token_id,
        ]);
        if (!token || token.revoked_at) return { error: "invalid_grant", description: "the grant was revoked" };
        if (token.oauth_client_id !== clientId)
          return { error: "invalid_grant", description: "the refresh token was issued to another client" };
        if (row.used_at) {
          await revokeGrant(tx, row.token_id, "refresh token used twice");
          return { error: "invalid_grant", description: "the refresh token was already used; the grant is revoked" };
        }
        if (row.expires_at <= now()) return { error: "invalid_grant", description: "the refresh token expired" };
        if (resource !== null && resource !== token.resource)
          return { error: "invalid_target", description: "this grant is for another resource" };
        await tx.run(`UPDATE oauth_refresh_tokens SET used_at = ? WHERE token_hash = ?`, [now(), row.token_hash]);
        const accessToken = newTokenSecret();
        await tx.run(`UPDATE tokens SET token_hash = ?, expires_at = ? WHERE id = ?`, [
          hashToken(accessToken),
          later(accessTtlSeconds),
          row.token_id,
        ]);
        const next = await newRefreshToken(tx, row.token_id, refreshTtlSeconds);
        return {
          accessToken,
          refreshToken: next,
          expiresIn: accessTtlSeconds,
          scopes: JSON.parse(token.scopes) as Capability[],
          tokenId: row.token_id,
        };
      });
    },
    async purgeExpired(at) {
      const current = at.toISOString();
      const cutoff = new Date(at.getTime() - OAUTH_LEFTOVER_GRACE_MS).toISOString();
      return db.transaction(async (tx) => {
        const refreshTokens = (await tx.run(`DELETE FROM oauth_refresh_tokens WHERE expires_at <= ?`, [current]))
          .changes;
        const requests = (
          await tx.run(
            `DELETE FROM oauth_requests WHERE expires_at <= ?
               AND (token_id IS NULL OR token_id NOT IN (SELECT token_id FROM oauth_refresh_tokens))`,
            [cutoff],
          )
        ).changes;
        const clients = (
          await tx.run(
            `DELETE FROM oauth_clients WHERE created_at <= ?
               AND client_id NOT IN (SELECT client_id FROM oauth_requests)
               AND client_id NOT IN (SELECT oauth_client_id FROM tokens WHERE oauth_client_id IS NOT NULL)`,
            [cutoff],
          )
        ).changes;
        return { refreshTokens, requests, clients };
      });
    },
    async tokenResource(tokenId) {
      const row = await db.get<{ resource: string | null }>(`SELECT resource FROM tokens WHERE id = ?`, [tokenId]);
      return row?.resource ?? null;
    },
  };
}
