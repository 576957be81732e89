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
