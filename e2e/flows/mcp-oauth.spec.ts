import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { auth, Client, StreamableHTTPClientTransport, UnauthorizedError } from "@modelcontextprotocol/client";
import { hermesClientDocument, serveClientDocuments, TestOAuthClient } from "@mnote/oauth/testing";
import { DEMO_USER_IDS, e2eState, expect, test } from "./support";

/**
 * Issue 23 item 4 in Chromium: an MCP client with no token (the MCP SDK's OAuth client, registering itself as Hermes
 * 0.18/0.19's `auth: oauth` does) discovers the panel from the bridge's 401, registers, sends the person to the consent page, gets a token
 * bound to the bridge's /mcp, lists tools as the person's agent, and is refused once the person revokes the grant
 * on "Connect an agent".
 */
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
    const provider = new TestOAuthClient({
      redirectUrl: `http://127.0.0.1:${port}/callback`,
      clientName: "e2e MCP client",
    });
    const serverUrl = new URL(`${e2eState().bridgeUrl}/mcp`);
    const connect = async () => {
      const client = new Client({ name: "e2e-oauth", version: "1.0.0" });
      await client.connect(new StreamableHTTPClientTransport(serverUrl, { authProvider: provider }));
      return client;
    };
    await expect(connect()).rejects.toBeInstanceOf(UnauthorizedError);
    expect(provider.client?.client_id).toMatch(/^oac_/);

    // Signed out, the consent page names who asks and where the answer goes, asks to sign in first, and the sign-in
    // comes back to it.
    await page.goto(provider.authorizationUrl!.href);
    await expect(page.getByRole("heading", { name: "Sign in to connect an agent" })).toBeVisible();
    await expect(page.getByTestId("oauth-redirect")).toHaveText(provider.redirectUrl);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByLabel("User", { exact: true }).selectOption(DEMO_USER_IDS.ben);
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await expect(page.getByRole("heading", { name: "Connect e2e MCP client to mnote?" })).toBeVisible();
    await expect(page.getByTestId("oauth-workspaces").locator("li")).not.toHaveCount(0);
    await expect(page.getByTestId("oauth-scopes")).toContainText("page.write");
    await page.getByRole("button", { name: "Allow" }).click();
    await expect.poll(() => callbacks.length).toBe(1);
    const back = callbacks[0]!;
    expect(back.searchParams.get("state")).toBe(provider.expectedState);
    expect(
      await auth(provider, {
        serverUrl,
        authorizationCode: back.searchParams.get("code")!,
        iss: back.searchParams.get("iss") ?? undefined,
      }),
    ).toBe("AUTHORIZED");

    const client = await connect();
    expect((await client.listTools()).tools.map((tool) => tool.name)).toContain("mnote_page_get");
    await client.close();

    await page.goto("/agents");
    const row = page.getByTestId("agent-token").filter({ hasText: "e2e MCP client (OAuth)" });
    await expect(row).toContainText("live");
    await row.getByRole("button", { name: "Revoke e2e MCP client (OAuth)" }).click();
    // Revoke asks first (issue 36).
    await page.getByRole("dialog").getByRole("button", { name: "Revoke the token" }).click();
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

test("a bad authorization request is shown on the panel and sends the browser nowhere, signed in or out (issue 31)", async ({
  page,
  request,
}) => {
  // Anyone may register a client that names a phishing page as its redirect URI.
  const registered = await request.post(`${e2eState().webUrl}/oauth/register`, {
    data: { client_name: "Not a phisher", redirect_uris: ["https://evil.example/phish"] },
  });
  expect(registered.status()).toBe(201);
  const { client_id: clientId } = (await registered.json()) as { client_id: string };
  const bad = new URLSearchParams({
    response_type: "token",
    client_id: clientId,
    redirect_uri: "https://evil.example/phish",
    state: "x",
  });
  const leftForElsewhere: string[] = [];
  page.on("request", (sent) => {
    if (new URL(sent.url()).hostname === "evil.example") leftForElsewhere.push(sent.url());
  });
  for (const signedIn of [false, true]) {
    if (signedIn) {
      await page.goto("/signin");
      await page.getByLabel("User", { exact: true }).selectOption(DEMO_USER_IDS.ben);
      await page.getByRole("button", { name: "Sign in", exact: true }).click();
      await expect(page).not.toHaveURL(/\/signin/);
    }
    const answer = await page.goto(`/oauth/authorize?${bad.toString()}`);
    expect(new URL(page.url()).pathname).toBe("/oauth/authorize");
    expect(answer?.headers()["x-frame-options"]).toBe("DENY");
    await expect(page.getByRole("heading", { name: "The agent's request was refused" })).toBeVisible();
    await expect(page.getByTestId("oauth-error")).toHaveText("unsupported_response_type");
    await expect(page.getByRole("button", { name: "Sign in" })).toHaveCount(0);
  }
  expect(leftForElsewhere).toEqual([]);
  // Nothing waits for a sign-in either: no resume cookie was set.
  expect((await page.context().cookies()).map((cookie) => cookie.name)).not.toContain("mnote_oauth_resume");
});

/**
 * Hermes 0.21's way in (MCP 2026-07-28): the MCP TypeScript SDK 2.x client, given its metadata document's URL as
 * Hermes gives its Python SDK one (`client_metadata_url`, tools/mcp_oauth.py at NousResearch/hermes-agent@00067189),
 * presents that URL as its client_id because the panel's metadata offers documents; the panel reads the document
 * (served here over https on loopback, which the e2e stack's panel may read: MNOTE_OAUTH_CLIENT_DOCUMENTS=loopback,
 * the test certificate in NODE_EXTRA_CA_CERTS), and the person consents to the name the document gives.
 */
test("an MCP client known by its metadata document connects with the person's consent (CIMD)", async ({ page }) => {
  const callbacks: URL[] = [];
  const callback = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    if (url.pathname !== "/callback") return void res.writeHead(404).end();
    callbacks.push(url);
    res.writeHead(200, { "content-type": "text/plain" }).end("You can close this tab.");
  });
  await new Promise<void>((resolve) => callback.listen(0, "127.0.0.1", resolve));
  const documents = await serveClientDocuments({}, { host: "127.0.0.1" });
  try {
    const redirect = `http://127.0.0.1:${(callback.address() as AddressInfo).port}/callback`;
    const path = "/hermes-agent/docs/oauth/client-metadata.json";
    const clientId = documents.url(path);
    // Hermes's document lists its five fixed callback ports; this one lists the test's own.
    documents.set(path, { body: { ...hermesClientDocument(clientId), redirect_uris: [redirect] } });
    const provider = new TestOAuthClient({
      redirectUrl: redirect,
      clientName: "Hermes Agent",
      clientMetadataUrl: clientId,
    });
    const serverUrl = new URL(`${e2eState().bridgeUrl}/mcp`);
    const connect = async () => {
      const client = new Client({ name: "e2e-cimd", version: "1.0.0" });
      await client.connect(new StreamableHTTPClientTransport(serverUrl, { authProvider: provider }));
      return client;
    };
    await expect(connect()).rejects.toBeInstanceOf(UnauthorizedError);
    expect(provider.authorizationUrl!.searchParams.get("client_id")).toBe(clientId);

    await page.goto("/signin");
    await page.getByLabel("User", { exact: true }).selectOption(DEMO_USER_IDS.ben);
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await expect(page).not.toHaveURL(/\/signin/);
    await page.goto(provider.authorizationUrl!.href);
    await expect(page.getByRole("heading", { name: "Connect Hermes Agent to mnote?" })).toBeVisible();
    await expect(page.getByText(`published at ${new URL(clientId).host}`)).toBeVisible();
    await page.getByRole("button", { name: "Allow" }).click();
    await expect.poll(() => callbacks.length).toBe(1);
    const back = callbacks[0]!;
    expect(back.searchParams.get("state")).toBe(provider.expectedState);
    expect(back.searchParams.get("iss")).toBe(e2eState().webUrl);
    expect(
      await auth(provider, {
        serverUrl,
        authorizationCode: back.searchParams.get("code")!,
        iss: back.searchParams.get("iss")!,
      }),
    ).toBe("AUTHORIZED");
    const client = await connect();
    expect((await client.listTools()).tools.map((tool) => tool.name)).toContain("mnote_page_get");
    await client.close();
    await page.goto("/agents");
    await expect(page.getByTestId("agent-token").filter({ hasText: "Hermes Agent (OAuth)" }).first()).toContainText(
      "live",
    );
  } finally {
    callback.close();
    await documents.close();
  }
});
