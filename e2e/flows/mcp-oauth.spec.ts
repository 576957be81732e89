import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { auth, type OAuthClientProvider, UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from "@modelcontextprotocol/sdk/shared/auth.js";
import { DEMO_USER_IDS, e2eState, expect, test } from "./support";

/**
 * Issue 23 item 4 in Chromium: an MCP client with no token (the MCP SDK's OAuth client, as Hermes's `auth: oauth`
 * is) discovers the panel from the bridge's 401, registers, sends the person to the consent page, gets a token
 * bound to the bridge's /mcp, lists tools as the person's agent, and is refused once the person revokes the grant
 * on "Connect an agent".
 */
class Provider implements OAuthClientProvider {
  client?: OAuthClientInformationMixed;
  saved?: OAuthTokens;
  verifier = "";
  authorizationUrl?: URL;
  readonly expectedState = `st-${Math.random().toString(36).slice(2)}`;
  constructor(private readonly redirect: string) {}
  get redirectUrl() {
    return this.redirect;
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: "e2e MCP client",
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
}

test("an MCP client connects through OAuth with the person's consent, and is refused once revoked", async ({
  page,
}) => {
  // The client's loopback callback, as Hermes listens for it. Only /callback counts: Chromium also asks the page's
  // origin for /favicon.ico, sometimes before the poll below has seen the callback (2 where 1 was expected).
  const callbacks: URL[] = [];
  const callback = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    if (url.pathname !== "/callback") {
      res.writeHead(404).end();
      return;
    }
    callbacks.push(url);
    res.writeHead(200, { "content-type": "text/plain" }).end("You can close this tab.");
  });
  await new Promise<void>((resolve) => callback.listen(0, "127.0.0.1", resolve));
  try {
    const port = (callback.address() as AddressInfo).port;
    const provider = new Provider(`http://127.0.0.1:${port}/callback`);
    const serverUrl = new URL(`${e2eState().bridgeUrl}/mcp`);
    const connect = async () => {
      const client = new Client({ name: "e2e-oauth", version: "1.0.0" });
      await client.connect(new StreamableHTTPClientTransport(serverUrl, { authProvider: provider }));
      return client;
    };
    await expect(connect()).rejects.toBeInstanceOf(UnauthorizedError);
    expect(provider.client?.client_id).toMatch(/^oac_/);

    // Signed out, the consent page asks to sign in first, and the sign-in comes back to it.
    await page.goto(provider.authorizationUrl!.href);
    await expect(page.getByRole("heading", { name: "Sign in to connect an agent" })).toBeVisible();
    await page.getByRole("link", { name: "Sign in" }).click();
    await page.getByLabel("User", { exact: true }).selectOption(DEMO_USER_IDS.ben);
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await expect(page.getByRole("heading", { name: "Connect e2e MCP client to mnote?" })).toBeVisible();
    await expect(page.getByTestId("oauth-workspaces").locator("li")).not.toHaveCount(0);
    await expect(page.getByTestId("oauth-scopes")).toContainText("page.write");
    await page.getByRole("button", { name: "Allow" }).click();
    await expect.poll(() => callbacks.length).toBe(1);
    const back = callbacks[0]!;
    expect(back.searchParams.get("state")).toBe(provider.expectedState);
    expect(await auth(provider, { serverUrl, authorizationCode: back.searchParams.get("code")! })).toBe("AUTHORIZED");

    const client = await connect();
    expect((await client.listTools()).tools.map((tool) => tool.name)).toContain("mnote_page_get");
    await client.close();

    await page.goto("/agents");
    const row = page.getByTestId("agent-token").filter({ hasText: "e2e MCP client (OAuth)" });
    await expect(row).toContainText("live");
    await row.getByRole("button", { name: "Revoke e2e MCP client (OAuth)" }).click();
    await expect(row).toContainText("revoked");
    // The bridge refuses the access token; the client's refresh is refused too (the grant is revoked).
    const refused = await fetch(serverUrl, {
      method: "POST",
      headers: {
        authorization: `Bearer ${provider.saved!.access_token}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(refused.status).toBe(401);
    await expect(connect()).rejects.toThrow(/the grant was revoked/);
  } finally {
    callback.close();
  }
});
