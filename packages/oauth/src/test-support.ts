import { readFileSync } from "node:fs";
import http from "node:http";
import https from "node:https";
import type { AddressInfo } from "node:net";
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthClientProvider,
  OAuthDiscoveryState,
  OAuthTokens,
} from "@modelcontextprotocol/client";

/**
 * A certificate authority for tests only: a self-signed certificate (and its key, which guards nothing) for
 * localhost, 127.0.0.1, ::1, client.test and agent.test, valid until 2126. Made with
 * `openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 36500 -addext subjectAltName=…`.
 * Tests hand it to `ClientDocuments` as `ca`; the e2e stack gives it to the panel as NODE_EXTRA_CA_CERTS.
 */
export const TEST_CA_PATH = new URL("./fixtures/test-cert.pem", import.meta.url).pathname;
export const TEST_CA = readFileSync(TEST_CA_PATH, "utf8");
const TEST_KEY = readFileSync(new URL("./fixtures/test-key.pem", import.meta.url), "utf8");

/** One answer of the document server: a body (JSON when an object), a status, headers, a delay. */
export interface DocumentRoute {
  body?: unknown;
  status?: number;
  headers?: Record<string, string>;
  delayMs?: number;
}

export interface DocumentServer {
  /** e.g. https://localhost:41234 */
  origin: string;
  /** The URL of a path on this server, as a client_id would name it. */
  url(path: string): string;
  /** The paths asked for, in order (to tell a cache hit from a fetch). */
  requests: string[];
  /** Changes (or adds) what a path answers. */
  set(path: string, route: DocumentRoute): void;
  close(): Promise<void>;
}

/**
 * Where a client publishes its metadata document, on loopback: https with the test certificate (or http, for the
 * development switch's case). Answers each path from `routes`, 404 otherwise.
 */
export async function serveClientDocuments(
  routes: Record<string, DocumentRoute> = {},
  options: { protocol?: "https" | "http"; host?: string } = {},
): Promise<DocumentServer> {
  const table = new Map(Object.entries(routes));
  const requests: string[] = [];
  const handler: http.RequestListener = (req, res) => {
    const path = new URL(req.url ?? "/", "http://x").pathname;
    requests.push(path);
    const route = table.get(path);
    const answer = () => {
      if (!route) return res.writeHead(404).end();
      const body = typeof route.body === "string" ? route.body : JSON.stringify(route.body ?? {});
      res
        .writeHead(route.status ?? 200, { "content-type": "application/json", ...route.headers })
        .end(route.status && route.status >= 300 && route.status < 400 ? undefined : body);
    };
    if (route?.delayMs) setTimeout(answer, route.delayMs);
    else answer();
  };
  const protocol = options.protocol ?? "https";
  const server =
    protocol === "https" ? https.createServer({ key: TEST_KEY, cert: TEST_CA }, handler) : http.createServer(handler);
  const host = options.host ?? "localhost";
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const origin = `${protocol}://${host}:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    url: (path) => `${origin}${path}`,
    requests,
    set: (path, route) => void table.set(path, route),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * The metadata document Hermes Agent 0.21 publishes, as its own shape: `website/static/oauth/client-metadata.json`
 * (read at the mirror zqYuan98/hermes-agent@81c6a22b; its URL and ports are those of `tools/mcp_oauth.py`,
 * `_CIMD_CLIENT_METADATA_URL` and `_CIMD_PORTS`, at NousResearch/hermes-agent@00067189): a native public client with
 * both grants and loopback callbacks on ports 27890–27894, under 127.0.0.1 and localhost. `clientId` replaces its URL
 * (https://nousresearch.github.io/hermes-agent/docs/oauth/client-metadata.json) with the test server's.
 */
export function hermesClientDocument(clientId: string, ports: readonly number[] = [27890, 27891, 27892, 27893, 27894]) {
  return {
    client_id: clientId,
    client_name: "Hermes Agent",
    client_uri: "https://hermes-agent.nousresearch.com",
    logo_uri: "https://nousresearch.github.io/hermes-agent/docs/img/logo.png",
    application_type: "native",
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
    token_endpoint_auth_method: "none",
    redirect_uris: ports.flatMap((port) => [`http://127.0.0.1:${port}/callback`, `http://localhost:${port}/callback`]),
  };
}

/**
 * An MCP client's OAuth side as tests drive it (the MCP TypeScript SDK 2.x's `OAuthClientProvider`): it records what
 * the SDK hands it and, instead of opening a browser, keeps the authorization URL for the test to visit. With
 * `clientMetadataUrl` it identifies itself by that document where the server offers documents — as Hermes 0.21 hands
 * its Python SDK `client_metadata_url` (tools/mcp_oauth.py at NousResearch/hermes-agent@00067189); without, it
 * registers (RFC 7591), as Hermes 0.18/0.19 do.
 */
export class TestOAuthClient implements OAuthClientProvider {
  client?: OAuthClientInformationMixed;
  saved?: OAuthTokens;
  verifier = "";
  discovery?: OAuthDiscoveryState;
  authorizationUrl?: URL;
  readonly expectedState = `state-${Math.random().toString(36).slice(2)}`;
  readonly clientMetadataUrl?: string;
  private readonly redirect: string;
  private readonly name: string;

  constructor(options: { redirectUrl: string; clientName: string; clientMetadataUrl?: string }) {
    this.redirect = options.redirectUrl;
    this.name = options.clientName;
    this.clientMetadataUrl = options.clientMetadataUrl;
  }
  get redirectUrl() {
    return this.redirect;
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: this.name,
      redirect_uris: [this.redirect],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  }
  state() {
    return this.expectedState;
  }
  clientInformation() {
    return this.client;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.client = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
  saveDiscoveryState(state: OAuthDiscoveryState) {
    this.discovery = state;
  }
  discoveryState() {
    return this.discovery;
  }
}
