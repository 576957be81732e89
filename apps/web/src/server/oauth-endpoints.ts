import type { SqlKernel } from "@mnote/kernel";
import {
  authorizationParams,
  authorizationQuery,
  authorizationServerMetadata,
  NO_STORE,
  oauthErrorJson,
  oauthJson,
  tokenParams,
} from "@mnote/oauth";
import { BodyTooLarge, retryAfterSeconds } from "@mnote/process";
import { createOAuthCaller, type ToolsSettings } from "@mnote/tools";
import { createPanelContext } from "./context";
import { NextResponse } from "next/server";
import { foreignOrigin } from "./origin";
import { type PanelLimiter, readRequestBody } from "./panel-api";
import { OAUTH_RESUME_COOKIE, oauthResumeCookieOptions, tokenFromCookieHeader } from "./session-cookie";

/**
 * The panel's OAuth endpoints as fetch handlers (decision 0027): HTTP only — the body's cap, the budget, forms and
 * JSON. Every decision is the OAuth router's (`createOAuthCaller`), every rule `@mnote/oauth`'s. The consent page
 * itself is a page of the panel (app/oauth/authorize/page.tsx); its two forms post to `handleDecision` and
 * `handleSignInToContinue`.
 */
export interface OAuthServerOptions {
  kernel: () => Promise<SqlKernel>;
  /** The router's settings with `oauth` set (panelEnv().tools). */
  toolsSettings: ToolsSettings;
  /** Origins allowed to post besides the panel's own (MNOTE_PANEL_ORIGINS). */
  allowedOrigins?: readonly string[];
  /** MNOTE_SECURE_COOKIES: the resume cookie is Secure too. */
  secureCookies?: boolean;
  /**
   * The panel's rate limiter. Registration shares one budget (it is anonymous by design, RFC 7591); the token
   * endpoint spends its budget on failed requests only, so a flood of made-up codes or refresh tokens never
   * refuses a client whose grant is good (issue 20's rule for every door).
   */
  limiter?: PanelLimiter | null;
}

/** A registration document or a token request is small; anything bigger is refused unread. */
export const OAUTH_BODY_LIMIT = 16 * 1024;

/** The budget every failed token request shares (no client is known before its grant checks out). */
export const TOKEN_FAILURES_KEY = "oauth:token:failed";
export const REGISTRATION_KEY = "oauth:register";

/** The OAuth router as the caller behind `authorization` (a session cookie's token, or none). */
export async function oauthCaller(options: OAuthServerOptions, authorization: string | null) {
  return createOAuthCaller(
    createPanelContext({ kernel: await options.kernel(), authorization, settings: options.toolsSettings }),
  );
}

/** The body as text, capped; null when over the cap or unreadable. */
async function smallBody(req: Request): Promise<string | null> {
  try {
    return new TextDecoder().decode(await readRequestBody(req, OAUTH_BODY_LIMIT));
  } catch (error) {
    // Over the cap, or a body that cannot be read (the client went away): bad input either way, never a 500.
    if (!(error instanceof BodyTooLarge)) console.warn("[panel] an OAuth request body could not be read");
    return null;
  }
}

/** A 429 when the endpoint's budget is spent (RFC 6585), else null. */
async function limited(options: OAuthServerOptions, key: string): Promise<Response | null> {
  const decision = await options.limiter?.take(key);
  if (!decision || decision.allowed) return null;
  return oauthJson(
    429,
    { error: "temporarily_unavailable", error_description: "too many requests; retry later" },
    { "retry-after": retryAfterSeconds(decision.retryAfterMs) },
  );
}

// The OAuth door's one refusal shape is RFC 6749's `{ error, error_description }`, these two included.
const notServer = () =>
  oauthJson(404, { error: "invalid_request", error_description: "this panel is not an OAuth authorization server" });
const usePost = () => oauthJson(405, { error: "invalid_request", error_description: "use POST" }, { allow: "POST" });

/** GET /.well-known/oauth-authorization-server (RFC 8414). */
export function handleMetadata(options: OAuthServerOptions): Response {
  const settings = options.toolsSettings.oauth;
  if (!settings) return notServer();
  return oauthJson(200, authorizationServerMetadata(settings), { "cache-control": "max-age=300" });
}

/** POST /oauth/register — RFC 7591, for clients that predate client ID metadata documents. */
export async function handleRegister(req: Request, options: OAuthServerOptions): Promise<Response> {
  if (!options.toolsSettings.oauth) return notServer();
  if (req.method !== "POST") return usePost();
  const busy = await limited(options, REGISTRATION_KEY);
  if (busy) return busy;
  const text = await smallBody(req);
  if (text === null)
    return oauthErrorJson({ error: "invalid_client_metadata", description: "the document is over 16 KiB" });
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch {
    return oauthErrorJson({
      error: "invalid_client_metadata",
      description: "the body is not a JSON client metadata document",
    });
  }
  const outcome = await (await oauthCaller(options, null)).register(document);
  if (!outcome.ok) return oauthErrorJson(outcome);
  const { client } = outcome;
  return oauthJson(201, {
    client_id: client.clientId,
    client_id_issued_at: Math.floor(Date.parse(client.createdAt) / 1000),
    client_name: client.clientName,
    redirect_uris: client.redirectUris,
    grant_types: outcome.grantTypes,
    response_types: ["code"],
    token_endpoint_auth_method: "none",
    ...(client.scope ? { scope: client.scope } : {}),
  });
}

/** POST /oauth/token — form-encoded (RFC 6749 §3.2); the answer is never cached. */
export async function handleToken(req: Request, options: OAuthServerOptions): Promise<Response> {
  if (!options.toolsSettings.oauth) return notServer();
  if (req.method !== "POST") return usePost();
  // Only a failed request spends the budget, and only failed requests are refused once it is spent: a good code or
  // refresh token is answered whatever others sent (each is single-use, so a client cannot loop on one).
  const failed = async (problem: { error: string; description: string }) =>
    (await limited(options, TOKEN_FAILURES_KEY)) ?? oauthErrorJson(problem as Parameters<typeof oauthErrorJson>[0]);
  if (!(req.headers.get("content-type") ?? "").startsWith("application/x-www-form-urlencoded"))
    return failed({ error: "invalid_request", description: "the token request is application/x-www-form-urlencoded" });
  const text = await smallBody(req);
  if (text === null) return failed({ error: "invalid_request", description: "the token request is over 16 KiB" });
  const fields = tokenParams(new URLSearchParams(text));
  if (!fields.ok) return failed(fields);
  let outcome;
  try {
    outcome = await (await oauthCaller(options, null)).token(fields.params);
  } catch (error) {
    // The router's input rules (a field over 2000 characters): the contract's words, as the standard's error.
    return failed({
      error: "invalid_request",
      description: error instanceof Error ? error.message : "invalid request",
    });
  }
  if (!outcome.ok) return failed(outcome);
  const { tokens } = outcome;
  return oauthJson(200, {
    access_token: tokens.accessToken,
    token_type: "Bearer",
    expires_in: tokens.expiresIn,
    refresh_token: tokens.refreshToken,
    scope: tokens.scopes.join(" "),
  });
}

/** Where a refused consent form goes: the panel's page saying why (a fixed sentence per reason, nothing echoed). */
export const refusedPath = (reason: string) => `/oauth/authorize/refused?reason=${encodeURIComponent(reason)}`;

/**
 * On to a page of this site, at the origin the browser posted from (its `Origin`, once `foreignOrigin` passed it; null
 * for a refused cross-site post):
 * a Location Next completes itself would name its bind address, another origin — without the cookie just set — for a
 * browser on 127.0.0.1.
 */
function toPanelPage(req: Request | null, path: string) {
  const origin = req?.headers.get("origin");
  const location = origin && origin !== "null" ? `${origin}${path}` : path;
  return new NextResponse(null, { status: 303, headers: { location, ...NO_STORE } });
}

/**
 * POST /oauth/authorize/decision — the consent form. A cross-site post is refused before anything is read (Origin, as
 * every panel change); the form's request secret, made for this session's page and good once, is the CSRF token the
 * router checks. Only Allow and Deny on a page that named the redirect URI send the browser to the client.
 */
export async function handleDecision(req: Request, options: OAuthServerOptions): Promise<Response> {
  if (!options.toolsSettings.oauth) return notServer();
  if (foreignOrigin(req, options.allowedOrigins ?? [])) return toPanelPage(null, refusedPath("cross_site"));
  const text = await smallBody(req);
  const form = new URLSearchParams(text ?? "");
  const decision = form.get("decision");
  if (text === null || (decision !== "approve" && decision !== "deny")) return toPanelPage(req, refusedPath("form"));
  let outcome;
  try {
    outcome = await (
      await oauthCaller(options, tokenFromCookieHeader(req.headers.get("cookie")))
    ).consent.decide({ requestSecret: form.get("request") ?? undefined, approve: decision === "approve" });
  } catch {
    return toPanelPage(req, refusedPath("signed_out"));
  }
  if (!outcome.ok) return toPanelPage(req, refusedPath(outcome.refusal));
  return new Response(null, { status: 303, headers: { location: outcome.redirectTo, ...NO_STORE } });
}

/**
 * POST /oauth/authorize/sign-in — "Sign in to continue" on a signed-out consent page. The request is checked in full
 * again, and only a request that passes waits in the resume cookie (set with Next's cookies API) while the person
 * signs in: a bad one is never kept, so no sign-in ever lands on an unvetted redirect URI.
 */
export async function handleSignInToContinue(req: Request, options: OAuthServerOptions): Promise<Response> {
  if (!options.toolsSettings.oauth) return notServer();
  if (foreignOrigin(req, options.allowedOrigins ?? [])) return toPanelPage(null, refusedPath("cross_site"));
  const text = await smallBody(req);
  const query = new URLSearchParams(new URLSearchParams(text ?? "").get("request") ?? "");
  const parsed = authorizationParams(query);
  const vetted = parsed.ok ? await (await oauthCaller(options, null)).authorize(parsed.params) : parsed;
  if (!parsed.ok || !vetted.ok) return toPanelPage(req, `/oauth/authorize?${query.toString()}`);
  const response = toPanelPage(req, "/signin");
  const kept = Buffer.from(authorizationQuery(parsed.params).toString(), "utf8").toString("base64url");
  response.cookies.set(OAUTH_RESUME_COOKIE, kept, oauthResumeCookieOptions(options.secureCookies ?? false));
  return response;
}
