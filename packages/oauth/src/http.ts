import type { OAuthError } from "./errors";

/** OAuth answers are never cached (RFC 6749 §5.1). */
export const NO_STORE = { "cache-control": "no-store", pragma: "no-cache" } as const;

/** A JSON answer of an OAuth endpoint. */
export function oauthJson(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json; charset=utf-8", ...NO_STORE, ...headers },
  });
}

/** An error answer (RFC 6749 §5.2, RFC 7591 §3.2.2): 401 for a client that is no one, 400 for everything else. */
export function oauthErrorJson(problem: Pick<OAuthError, "error" | "description">): Response {
  return oauthJson(problem.error === "invalid_client" ? 401 : problem.error === "temporarily_unavailable" ? 503 : 400, {
    error: problem.error,
    error_description: problem.description,
  });
}
