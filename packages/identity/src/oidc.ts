import { cleanDisplayName } from "@mnote/contract";
import * as client from "openid-client";

/**
 * The panel as an OpenID Connect relying party (issue 23): authorization code with PKCE (S256), `state` and
 * `nonce`, the ID token's signature checked against the issuer's JWKS and its claims (iss, aud, exp, nonce) by
 * `openid-client`. This module holds the protocol only; who the verified person is in mnote is `people.ts`.
 */
export interface OidcSettings {
  /** MNOTE_OIDC_ISSUER, e.g. https://login.example.com (http only on a loopback address, for tests). */
  issuer: string;
  /** MNOTE_OIDC_CLIENT_ID */
  clientId: string;
  /** MNOTE_OIDC_CLIENT_SECRET (client_secret_basic at the token endpoint). */
  clientSecret: string;
  /** MNOTE_OIDC_AUTO_PROVISION=1: a verified email nobody has becomes a new user, in no workspace. */
  autoProvision: boolean;
}

/** What one sign-in must find again at its callback; the panel keeps it in a short-lived HttpOnly cookie. */
export interface SignInFlow {
  state: string;
  nonce: string;
  codeVerifier: string;
  redirectUri: string;
}

/** The person the identity provider vouches for, from a validated ID token. */
export interface VerifiedIdentity {
  issuer: string;
  subject: string;
  email: string | null;
  emailVerified: boolean;
  name: string | null;
}

/** Why a sign-in stopped; the panel's sign-in page says each in words. */
export type SignInRefusalReason =
  /** No flow for this callback (its cookie expired, or the callback was already used), or its state differs. */
  | "state"
  /** The identity provider answered the authorization request with an error (e.g. the person cancelled). */
  | "provider_error"
  /** The code exchange or the ID token failed a check: signature, issuer, audience, expiry, nonce, PKCE. */
  | "token"
  /** The identity provider could not be reached (discovery, JWKS or token endpoint). */
  | "unreachable";

export class SignInRefused extends Error {
  constructor(
    readonly reason: SignInRefusalReason,
    detail: string,
  ) {
    super(`${reason}: ${detail}`);
    this.name = "SignInRefused";
  }
}

/** http is allowed for an issuer on this machine only (the tests' provider); anything else must be https. */
export function isLoopbackHttp(url: URL): boolean {
  return url.protocol === "http:" && ["127.0.0.1", "localhost", "[::1]"].includes(url.hostname);
}

/** A flow cookie's value as the panel stores it; anything that does not parse as one is no flow. */
export function encodeFlow(flow: SignInFlow): string {
  return Buffer.from(JSON.stringify(flow)).toString("base64url");
}

export function decodeFlow(value: string | null | undefined): SignInFlow | null {
  if (!value) return null;
  try {
    const parsed = JSON.parse(Buffer.from(value, "base64url").toString("utf8")) as Partial<SignInFlow>;
    const fields = [parsed.state, parsed.nonce, parsed.codeVerifier, parsed.redirectUri];
    return fields.every((field) => typeof field === "string" && field.length > 0 && field.length <= 2048)
      ? (parsed as SignInFlow)
      : null;
  } catch {
    return null;
  }
}

export class OidcRelyingParty {
  private configuration: Promise<client.Configuration> | undefined;

  constructor(
    readonly settings: OidcSettings,
    private readonly options: { timeoutSeconds?: number } = {},
  ) {}

  /** Discovery once per process; a failure is forgotten, so the next sign-in tries again. */
  private config(): Promise<client.Configuration> {
    const issuer = new URL(this.settings.issuer);
    this.configuration ??= client
      .discovery(issuer, this.settings.clientId, undefined, client.ClientSecretBasic(this.settings.clientSecret), {
        execute: [
          // Check the ID token's signature with the issuer's JWKS, not only its claims (openid-client skips that
          // for a token fetched over TLS unless asked).
          client.enableNonRepudiationChecks,
          ...(isLoopbackHttp(issuer) ? [client.allowInsecureRequests] : []),
        ],
        timeout: this.options.timeoutSeconds ?? 10,
      })
      .catch((error: unknown) => {
        this.configuration = undefined;
        throw new SignInRefused("unreachable", describe(error));
      });
    return this.configuration;
  }

  /** Where to send the browser, and the flow to keep until it comes back to `redirectUri`. */
  async start(redirectUri: string): Promise<{ url: URL; flow: SignInFlow }> {
    const config = await this.config();
    const flow: SignInFlow = {
      state: client.randomState(),
      nonce: client.randomNonce(),
      codeVerifier: client.randomPKCECodeVerifier(),
      redirectUri,
    };
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: redirectUri,
      scope: "openid email profile",
      response_type: "code",
      code_challenge: await client.calculatePKCECodeChallenge(flow.codeVerifier),
      code_challenge_method: "S256",
      state: flow.state,
      nonce: flow.nonce,
    });
    return { url, flow };
  }

  /**
   * The callback: `query` is the callback's query string as the browser brought it. The code is exchanged with
   * the flow's PKCE verifier and the ID token checked; anything short of that throws SignInRefused.
   */
  async finish(flow: SignInFlow | null, query: URLSearchParams): Promise<VerifiedIdentity> {
    if (!flow) throw new SignInRefused("state", "no sign-in in progress in this browser (or it was already used)");
    if (query.get("state") !== flow.state) throw new SignInRefused("state", "the state does not match this sign-in");
    const config = await this.config();
    const current = new URL(flow.redirectUri);
    for (const [key, value] of query) current.searchParams.append(key, value);
    let tokens: Awaited<ReturnType<typeof client.authorizationCodeGrant>>;
    try {
      tokens = await client.authorizationCodeGrant(config, current, {
        pkceCodeVerifier: flow.codeVerifier,
        expectedState: flow.state,
        expectedNonce: flow.nonce,
        idTokenExpected: true,
      });
    } catch (error) {
      if (error instanceof client.AuthorizationResponseError) throw new SignInRefused("provider_error", error.error);
      if (isNetworkFailure(error)) throw new SignInRefused("unreachable", describe(error));
      throw new SignInRefused("token", describe(error));
    }
    const claims = tokens.claims();
    if (!claims) throw new SignInRefused("token", "the identity provider sent no ID token");
    return {
      issuer: claims.iss,
      subject: claims.sub,
      // As sent: whether it is an email mnote accepts is personForIdentity's question (EmailSchema).
      email: typeof claims.email === "string" ? claims.email : null,
      // Only the boolean true counts: a string "true" or a missing claim is not a verified email.
      emailVerified: claims.email_verified === true,
      // Bounded and cleaned before anything keeps or shows it (issue 31: a 200,000-character name was stored).
      name: cleanDisplayName(claims.name),
    };
  }
}

function isNetworkFailure(error: unknown): boolean {
  return error instanceof TypeError && /fetch failed/i.test(error.message);
}

/** For the server's log, never for the browser: the library's message with its code, if any. */
function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const { code, cause } = error as { code?: unknown; cause?: unknown };
  const parts = [typeof code === "string" ? `${code}: ${error.message}` : error.message];
  if (error instanceof client.ResponseBodyError)
    parts.push(`(${error.error}${error.error_description ? `: ${error.error_description}` : ""})`);
  // openid-client words its errors generally; oauth4webapi's error under it names the check (iss, aud, exp, nonce).
  else if (cause instanceof Error) parts.push(`(${cause.message})`);
  return parts.join(" ");
}
