import { hashToken, isTokenLive, type SqlKernel, type TokenRecord } from "@mnote/kernel";
import { bearerSecret, doorRefusal } from "./context";

/**
 * The token behind an `Authorization` value (or a bare token): issued by mnote, not revoked, not
 * expired; else null. A tool call's `authenticate` check (middleware/checks.ts) decides on the same facts, read
 * with the call's other facts in one statement; this is for the places where no tool runs: the panel's own
 * procedures (`panelProcedure`) and its change stream, the bridge's `/v1/whoami`, MCP session binding and the
 * stdio token check, the panel's rate-limit key, the demo's saved tokens.
 */
export async function resolveToken(
  kernel: SqlKernel,
  authorization: string | null | undefined,
): Promise<TokenRecord | null> {
  const secret = bearerSecret(authorization);
  if (!secret) return null;
  const token = await kernel.findTokenByHash(hashToken(secret));
  return isTokenLive(token, kernel.clock.now().toISOString()) ? token : null;
}

/**
 * "A signed-in person": a live token whose holder the panel's door accepts (`doorRefusal`), else null.
 * The panel's sign-in and its procedures ask this one question.
 */
export async function signedInPerson(
  kernel: SqlKernel,
  authorization: string | null | undefined,
): Promise<TokenRecord | null> {
  const token = await resolveToken(kernel, authorization);
  return token && !doorRefusal("panel", token.holder) ? token : null;
}

/**
 * Why a token does not sign a person in to the panel, said only to whoever sent it:
 * - `malformed`: it is not shaped like an mnote token at all (every one starts with `mnt_`);
 * - `unknown`: no token mnote issued has this secret (mistyped, cut short, or from another mnote);
 * - `revoked`, `expired`: the token was mnote's, and is no longer live;
 * - `agent`: a live token, but an agent's (agent tokens work at the bridge, not at the panel).
 * Only a caller holding the secret learns its state, and nothing about anyone else's: the token is looked up by the
 * hash of what was sent, as every door does.
 */
export type PersonSignInProblem = "malformed" | "unknown" | "revoked" | "expired" | "agent";

/** Every mnote token's secret starts so (`newTokenSecret`). */
const TOKEN_PREFIX = "mnt_";

/** The panel's token sign-in: the person's live token, or the one true reason it is not one. */
export async function checkPersonSignIn(
  kernel: SqlKernel,
  sent: string | null | undefined,
): Promise<{ ok: true; token: TokenRecord } | { ok: false; problem: PersonSignInProblem }> {
  const secret = bearerSecret(sent);
  if (!secret?.startsWith(TOKEN_PREFIX)) return { ok: false, problem: "malformed" };
  const token = await kernel.findTokenByHash(hashToken(secret));
  if (!token) return { ok: false, problem: "unknown" };
  if (token.revokedAt) return { ok: false, problem: "revoked" };
  if (!isTokenLive(token, kernel.clock.now().toISOString())) return { ok: false, problem: "expired" };
  if (doorRefusal("panel", token.holder)) return { ok: false, problem: "agent" };
  return { ok: true, token };
}
