import { CAPABILITIES } from "@mnote/contract";
import type { SqlKernel } from "@mnote/kernel";
import { createCaller, createToolsContext, type OAuthServerSettings, type ToolsSettings } from "@mnote/tools";
import { OAuthClientMetadataSchema, type OAuthMetadata } from "@modelcontextprotocol/sdk/shared/auth.js";
import { foreignOrigin } from "./origin";
import { BodyTooLarge, type PanelLimiter, readCappedBody } from "./panel-api";
import { retryAfterSeconds } from "@mnote/process";
import { OAUTH_RESUME_COOKIE, oauthResumeCookieOptions, tokenFromCookieHeader } from "./session-cookie";

/**
 * The panel as an OAuth 2.1 authorization server for the bridge's /mcp (issue 23 item 4, decision 0027), as plain
 * fetch handlers: the Next routes under app/oauth and app/.well-known call these, and the tests call them directly.
 * Every decision is the router's (`oauth.*`, `panel.oauth.*`); this module speaks HTTP, forms and JSON.
 */
export interface OAuthServerOptions {
  kernel: () => Promise<SqlKernel>;
  /** The router's settings with `oauth` set (panelEnv().tools). */
  toolsSettings: ToolsSettings;
  /** Origins allowed to post besides the panel's own (MNOTE_PANEL_ORIGINS). */
  allowedOrigins?: readonly string[];
  /** MNOTE_SECURE_COOKIES: the resume cookie a signed-out consent page sets is Secure too. */
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

/** The body as text, capped; null when over the cap or unreadable. */
async function smallBody(req: Request): Promise<string | null> {
  try {
    return new TextDecoder().decode(await readCappedBody(req, OAUTH_BODY_LIMIT));
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
  return json(
    429,
    { error: "temporarily_unavailable", error_description: "too many requests; retry later" },
    { "retry-after": retryAfterSeconds(decision.retryAfterMs) },
  );
}

/** The budget every failed token request shares (no client is known before its grant checks out). */
export const TOKEN_FAILURES_KEY = "oauth:token:failed";

export const OAUTH_PATHS = {
  metadata: "/.well-known/oauth-authorization-server",
  authorize: "/oauth/authorize",
  token: "/oauth/token",
  register: "/oauth/register",
} as const;

const NO_STORE = { "cache-control": "no-store", pragma: "no-cache" };

function json(status: number, body: unknown, headers: Record<string, string> = {}) {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json; charset=utf-8", ...NO_STORE, ...headers },
  });
}

/** An OAuth error answer (RFC 6749 §5.2): 401 for a client that is no one, 400 for everything else. */
function oauthErrorResponse(error: string, description: string) {
  return json(error === "invalid_client" ? 401 : 400, { error, error_description: description });
}

function settingsOf(options: OAuthServerOptions): OAuthServerSettings | null {
  return options.toolsSettings.oauth ?? null;
}

async function caller(options: OAuthServerOptions, authorization: string | null) {
  return createCaller(
    createToolsContext({
      kernel: await options.kernel(),
      authorization,
      door: "panel",
      settings: options.toolsSettings,
    }),
  );
}

/** RFC 8414 metadata: code + PKCE S256 only, public clients, registration open (RFC 7591). */
export function authorizationServerMetadata(settings: OAuthServerSettings): OAuthMetadata {
  const at = (path: string) => `${settings.issuer}${path}`;
  return {
    issuer: settings.issuer,
    authorization_endpoint: at(OAUTH_PATHS.authorize),
    token_endpoint: at(OAUTH_PATHS.token),
    registration_endpoint: at(OAUTH_PATHS.register),
    response_types_supported: ["code"],
    grant_types_supported: ["authorization_code", "refresh_token"],
    code_challenge_methods_supported: ["S256"],
    token_endpoint_auth_methods_supported: ["none"],
    scopes_supported: [...CAPABILITIES],
    authorization_response_iss_parameter_supported: true,
  };
}

export function handleMetadata(options: OAuthServerOptions): Response {
  const settings = settingsOf(options);
  if (!settings) return json(404, { error: "this panel is not an OAuth authorization server" });
  return json(200, authorizationServerMetadata(settings), { "cache-control": "max-age=300" });
}

/** POST /oauth/register — RFC 7591: the document is checked against the MCP SDK's schema, then the router's rules. */
export async function handleRegister(req: Request, options: OAuthServerOptions): Promise<Response> {
  if (!settingsOf(options)) return json(404, { error: "this panel is not an OAuth authorization server" });
  if (req.method !== "POST") return json(405, { error: "use POST" }, { allow: "POST" });
  const busy = await limited(options, "oauth:register");
  if (busy) return busy;
  const text = await smallBody(req);
  if (text === null) return oauthErrorResponse("invalid_client_metadata", "the document is over 16 KiB");
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return oauthErrorResponse("invalid_client_metadata", "the body is not a JSON client metadata document");
  }
  const parsed = OAuthClientMetadataSchema.safeParse(body);
  if (!parsed.success)
    return oauthErrorResponse(
      "invalid_client_metadata",
      parsed.error.issues.map((issue) => `${issue.path.join(".") || "document"}: ${issue.message}`).join("; "),
    );
  const metadata = parsed.data;
  let outcome;
  try {
    outcome = await (
      await caller(options, null)
    ).oauth.register({
      clientName: metadata.client_name,
      redirectUris: metadata.redirect_uris.map(String),
      grantTypes: metadata.grant_types,
      responseTypes: metadata.response_types,
      tokenEndpointAuthMethod: metadata.token_endpoint_auth_method,
      scope: metadata.scope,
    });
  } catch (error) {
    // The router's input rules (sizes, counts): the contract's message, as the standard's error.
    return oauthErrorResponse("invalid_client_metadata", error instanceof Error ? error.message : "invalid metadata");
  }
  if (!outcome.ok) return oauthErrorResponse(outcome.error, outcome.description);
  const { client } = outcome;
  return json(201, {
    client_id: client.clientId,
    client_id_issued_at: Math.floor(Date.parse(client.createdAt) / 1000),
    client_name: client.clientName,
    redirect_uris: client.redirectUris,
    grant_types: outcome.grantTypes,
    response_types: ["code"],
    token_endpoint_auth_method: outcome.tokenEndpointAuthMethod,
    ...(client.scope ? { scope: client.scope } : {}),
  });
}

/** POST /oauth/token — form-encoded (RFC 6749 §3.2); the answer is never cached. */
export async function handleToken(req: Request, options: OAuthServerOptions): Promise<Response> {
  if (!settingsOf(options)) return json(404, { error: "this panel is not an OAuth authorization server" });
  if (req.method !== "POST") return json(405, { error: "use POST" }, { allow: "POST" });
  if (!(req.headers.get("content-type") ?? "").startsWith("application/x-www-form-urlencoded"))
    return oauthErrorResponse("invalid_request", "the token request is application/x-www-form-urlencoded");
  // Only a failed request spends the budget, and only failed requests are refused once it is spent: a good
  // code or refresh token is answered whatever others sent (each is single-use, so a client cannot loop on one).
  const failed = async (error: string, description: string) =>
    (await limited(options, TOKEN_FAILURES_KEY)) ?? oauthErrorResponse(error, description);
  const text = await smallBody(req);
  if (text === null) return failed("invalid_request", "the token request is over 16 KiB");
  const form = new URLSearchParams(text);
  const field = (name: string) => form.get(name) ?? undefined;
  let outcome;
  try {
    outcome = await (
      await caller(options, null)
    ).oauth.token({
      grantType: field("grant_type"),
      code: field("code"),
      codeVerifier: field("code_verifier"),
      redirectUri: field("redirect_uri"),
      clientId: field("client_id"),
      refreshToken: field("refresh_token"),
      resource: field("resource"),
    });
  } catch (error) {
    return failed("invalid_request", error instanceof Error ? error.message : "invalid token request");
  }
  if (!outcome.ok) return failed(outcome.error, outcome.description);
  const { tokens } = outcome;
  return json(200, {
    access_token: tokens.accessToken,
    token_type: "Bearer",
    expires_in: tokens.expiresIn,
    refresh_token: tokens.refreshToken,
    scope: tokens.scopes.join(" "),
  });
}

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);

function page(status: number, title: string, body: string) {
  return new Response(
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)} · mnote</title><style>body{font:16px/1.5 system-ui,sans-serif;margin:0;background:#f7f7f5}main.oauth{max-width:36rem;margin:3rem auto;padding:1.5rem;background:#fff;border-radius:8px}.muted{color:#666}button{font:inherit;padding:.5rem 1.2rem;margin-right:.5rem}</style></head><body><main class="oauth">${body}</main></body></html>`,
    {
      status,
      headers: {
        "content-type": "text/html; charset=utf-8",
        ...NO_STORE,
        // The consent page is never framed by another site (clickjacking), and its form posts only here.
        "x-frame-options": "DENY",
        "content-security-policy": "frame-ancestors 'none'",
      },
    },
  );
}

const errorPage = (status: number, error: string, description: string) =>
  page(
    status,
    "Authorization refused",
    `<h1>The agent's request was refused</h1><p><code>${escapeHtml(error)}</code>: ${escapeHtml(description)}</p><p>Nothing was granted. <a href="/">Back to mnote</a></p>`,
  );

const SCOPE_WORDS: Record<string, string> = {
  "page.read": "read the pages you can read",
  "page.write": "edit the pages you can edit (held for approval where your workspace asks for it)",
  "artifact.write": "add AI notes and summaries to pages",
};

/**
 * GET /oauth/authorize — the consent page: who asks (the client's registered name and where the answer goes), for
 * whom, in which workspaces, for what. Signed out, it says to sign in first; the request stays in the address bar.
 */
export async function handleAuthorize(req: Request, options: OAuthServerOptions): Promise<Response> {
  if (!settingsOf(options)) return errorPage(404, "not_found", "this panel is not an OAuth authorization server");
  const url = new URL(req.url);
  // Back from signing in: the request the signed-out page kept (base64url of its query), checked again in full.
  const resumed = url.searchParams.get("resume");
  const query = resumed ? new URLSearchParams(Buffer.from(resumed, "base64url").toString("utf8")) : url.searchParams;
  const param = (name: string) => query.get(name) ?? undefined;
  const session = tokenFromCookieHeader(req.headers.get("cookie"));
  const input = {
    responseType: param("response_type"),
    clientId: param("client_id"),
    redirectUri: param("redirect_uri"),
    scope: param("scope"),
    state: param("state"),
    codeChallenge: param("code_challenge"),
    codeChallengeMethod: param("code_challenge_method"),
    resource: param("resource"),
  };
  let outcome;
  try {
    outcome = await (await caller(options, session)).panel.oauth.open(input);
  } catch {
    // No session, an expired one, or an agent's token: the request waits in a cookie while the person signs in, and
    // the sign-in comes back here (afterSignInPath).
    const keep = Buffer.from(query.toString(), "utf8").toString("base64url");
    const response = page(
      401,
      "Sign in to connect an agent",
      `<h1>Sign in to connect an agent</h1><p>An agent asks to act for you in mnote. <a href="/signin">Sign in</a>; you come back here to decide.</p>`,
    );
    const cookie = oauthResumeCookieOptions(options.secureCookies ?? false);
    response.headers.append(
      "set-cookie",
      `${OAUTH_RESUME_COOKIE}=${keep}; Path=${cookie.path}; Max-Age=${cookie.maxAge}; HttpOnly; SameSite=Lax${cookie.secure ? "; Secure" : ""}`,
    );
    return response;
  }
  if (outcome.kind === "error") return errorPage(400, outcome.error, outcome.description);
  if (outcome.kind === "redirect")
    return new Response(null, { status: 302, headers: { location: outcome.url, ...NO_STORE } });
  const workspaces = outcome.workspaces.length
    ? outcome.workspaces
        .map(
          (w) =>
            `<li><strong>${escapeHtml(w.name)}</strong> <span class="muted">(${escapeHtml(w.role ?? "member")})</span></li>`,
        )
        .join("")
    : "<li>none yet: it can reach nothing until you join a workspace</li>";
  const scopes = outcome.scopes
    .map((s) => `<li><code>${escapeHtml(s)}</code> — ${escapeHtml(SCOPE_WORDS[s] ?? s)}</li>`)
    .join("");
  return page(
    200,
    "Connect an agent",
    `<h1>Connect <span data-testid="oauth-client">${escapeHtml(outcome.client.name)}</span> to mnote?</h1>
<p><strong>${escapeHtml(outcome.client.name)}</strong> asks to act for you, <strong>${escapeHtml(outcome.person)}</strong>, as an agent. Its writes follow each workspace's approval policy, as every agent's do.</p>
<h2>In your workspaces</h2><ul data-testid="oauth-workspaces">${workspaces}</ul>
<h2>It may</h2><ul data-testid="oauth-scopes">${scopes}</ul>
<p class="muted">Its tokens work only at <code>${escapeHtml(outcome.resource)}</code>. The answer goes to <code>${escapeHtml(outcome.client.redirectUri)}</code>. You can revoke it any time under <a href="/agents">Connect an agent</a>.</p>
<form method="post" action="${OAUTH_PATHS.authorize}">
<input type="hidden" name="request" value="${escapeHtml(outcome.requestSecret)}">
<button type="submit" name="decision" value="approve">Allow</button>
<button type="submit" name="decision" value="deny">Deny</button>
</form>`,
  );
}

/**
 * POST /oauth/authorize — the consent form. A cross-site post is refused before anything is read (Origin, as every
 * panel change); the form's request secret, made for this session's page and good once, is the CSRF token the
 * router checks. A refusal shows a page and sends nothing to the client.
 */
export async function handleDecision(req: Request, options: OAuthServerOptions): Promise<Response> {
  if (!settingsOf(options)) return errorPage(404, "not_found", "this panel is not an OAuth authorization server");
  if (foreignOrigin(req, options.allowedOrigins ?? []))
    return errorPage(403, "invalid_request", "cross-site consent refused: answer on mnote's own page");
  const text = await smallBody(req);
  if (text === null) return errorPage(413, "invalid_request", "the consent form is over 16 KiB");
  const form = new URLSearchParams(text);
  const decision = form.get("decision");
  if (decision !== "approve" && decision !== "deny")
    return errorPage(400, "invalid_request", "the consent form's answer is approve or deny");
  const session = tokenFromCookieHeader(req.headers.get("cookie"));
  let outcome;
  try {
    outcome = await (
      await caller(options, session)
    ).panel.oauth.decide({ requestSecret: form.get("request") ?? undefined, approve: decision === "approve" });
  } catch {
    return errorPage(401, "access_denied", "sign in again, then start again from the agent");
  }
  if (outcome.kind === "error") return errorPage(400, outcome.error, outcome.description);
  return new Response(null, { status: 303, headers: { location: outcome.url, ...NO_STORE } });
}
