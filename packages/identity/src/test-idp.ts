import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { decodeJwt, exportJWK, generateKeyPair, type JWTPayload, SignJWT } from "jose";
import Provider from "oidc-provider";

/**
 * A real OpenID provider for tests: `oidc-provider` (certified), on a loopback port, with one confidential
 * client and a few people. Its development login and consent pages take any password; the login name is the
 * account id. The tests' only hook is `tamper`: it rewrites the ID token of the next token response, signed
 * again with the provider's own key (or another key, to forge one), so the relying party's checks meet a token
 * wrong in exactly one way.
 */
export interface TestPerson {
  email?: string;
  emailVerified?: boolean;
  name?: string;
}

export interface TestIdp {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Rewrite the next token response's ID token: claims changed and re-signed, or signed with a foreign key. */
  tamper(change: { claims?: (claims: JWTPayload) => JWTPayload; foreignKey?: boolean } | null): void;
  /** How many token responses the provider sent (proof that a refused callback reached, or did not reach, it). */
  tokenResponses(): number;
  stop(): Promise<void>;
}

const KID = "mnote-test-idp";

export async function startTestIdp(options: {
  redirectUris: string[];
  people: Record<string, TestPerson>;
  clientId?: string;
}): Promise<TestIdp> {
  let handler: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => res.end();
  const server = createServer((req, res) => handler(req, res));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const { privateKey } = await generateKeyPair("RS256", { extractable: true });
  const foreign = await generateKeyPair("RS256");
  const jwk = { ...(await exportJWK(privateKey)), kid: KID, alg: "RS256", use: "sig" };
  const clientId = options.clientId ?? "mnote-panel";
  const clientSecret = "test-client-secret-of-the-panel";

  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: options.redirectUris,
        grant_types: ["authorization_code"],
        response_types: ["code"],
        token_endpoint_auth_method: "client_secret_basic",
      },
    ],
    jwks: { keys: [jwk] },
    claims: { openid: ["sub"], email: ["email", "email_verified"], profile: ["name"] },
    // Every client must use PKCE, as the panel does.
    pkce: { required: () => true },
    features: { devInteractions: { enabled: true } },
    // The email and name go in the ID token itself (not only at userinfo), as most company IdPs send them.
    conformIdTokenClaims: false,
    cookies: { keys: ["mnote-test-idp-cookie-key"] },
    findAccount: (_ctx, id) => {
      const person = options.people[id];
      if (!person) return undefined;
      return {
        accountId: id,
        claims: () => ({
          sub: id,
          ...(person.email !== undefined && { email: person.email, email_verified: person.emailVerified ?? true }),
          ...(person.name !== undefined && { name: person.name }),
        }),
      };
    },
  });
  // The provider warns about its development pages on every start; the tests know.
  provider.on("server_error", () => undefined);

  let change: Parameters<TestIdp["tamper"]>[0] = null;
  let tokenResponses = 0;
  const callback = provider.callback();
  handler = (req, res) => {
    if (req.method !== "POST" || !req.url?.startsWith("/token")) return void callback(req, res);
    const end = res.end.bind(res) as (body?: unknown) => ServerResponse;
    const pending = change;
    change = null;
    res.end = ((body?: unknown) => {
      tokenResponses += 1;
      if (!pending || body === undefined || res.statusCode !== 200) return end(body);
      void (async () => {
        const json = JSON.parse(Buffer.isBuffer(body) ? body.toString("utf8") : (body as string)) as {
          id_token?: string;
        };
        if (json.id_token) {
          const claims = pending.claims ? pending.claims(decodeJwt(json.id_token)) : decodeJwt(json.id_token);
          json.id_token = await new SignJWT(claims)
            .setProtectedHeader({ alg: "RS256", kid: KID })
            .sign(pending.foreignKey ? foreign.privateKey : privateKey);
        }
        const text = JSON.stringify(json);
        res.setHeader("content-length", Buffer.byteLength(text));
        end(text);
      })();
      return res;
    }) as ServerResponse["end"];
    void callback(req, res);
  };

  return {
    issuer,
    clientId,
    clientSecret,
    tamper: (next) => void (change = next),
    tokenResponses: () => tokenResponses,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * A person at the provider's own pages without a browser (Playwright does it in Chromium in e2e/): follow the
 * redirects from the authorization URL, fill the login form with `login` and confirm consent, and answer the
 * URL the provider finally sends the browser to, on `redirectPrefix` (the relying party's callback).
 */
export async function signInThroughIdp(authorizationUrl: URL, login: string, redirectPrefix: string): Promise<URL> {
  const cookies = new Map<string, string>();
  const send = async (url: URL, init: RequestInit = {}) => {
    const response = await fetch(url, {
      ...init,
      redirect: "manual",
      headers: {
        ...(init.headers as Record<string, string>),
        cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join("; "),
      },
    });
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(";");
      const at = pair!.indexOf("=");
      cookies.set(pair!.slice(0, at), pair!.slice(at + 1));
    }
    return response;
  };
  let url = authorizationUrl;
  let response = await send(url);
  for (let step = 0; step < 20; step++) {
    const location = response.headers.get("location");
    if (location) {
      url = new URL(location, url);
      if (url.href.startsWith(redirectPrefix)) return url;
      response = await send(url);
      continue;
    }
    const html = await response.text();
    const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1];
    const prompt = /name="prompt" value="(\w+)"/.exec(html)?.[1];
    if (!action || !prompt)
      throw new Error(`the provider answered ${response.status} without a form: ${html.slice(0, 300)}`);
    const body = new URLSearchParams({ prompt, ...(prompt === "login" && { login, password: "any" }) });
    url = new URL(action, url);
    response = await send(url, {
      method: "POST",
      body,
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
  }
  throw new Error("the provider never sent the browser back");
}
