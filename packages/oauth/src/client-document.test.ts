import type { LookupAddress } from "node:dns";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addressProblem, clientIdUrlProblem, ClientDocuments, type ClientDocumentsOptions } from "./client-document";
import { type DocumentServer, hermesClientDocument, serveClientDocuments, TEST_CA } from "./test-support";

/**
 * Reading client ID metadata documents against a real TLS server on loopback. Tests name their hosts through
 * `resolveHost` (client.test → 127.0.0.1): what the panel checks is the address a name resolves to, never the name.
 */
let server: DocumentServer;
let port: number;
const HERMES = "/hermes-agent/docs/oauth/client-metadata.json";

beforeAll(async () => {
  server = await serveClientDocuments({}, { host: "client.test" });
  port = Number(new URL(server.origin).port);
});
afterAll(async () => server?.close());

const resolvingTo =
  (...addresses: string[]) =>
  async (): Promise<LookupAddress[]> =>
    addresses.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));

/** A reader of the test server's documents: its name resolves to loopback, which only development allows. */
function reader(options: ClientDocumentsOptions = {}) {
  return new ClientDocuments({ allowLoopback: true, ca: TEST_CA, resolveHost: resolvingTo("127.0.0.1"), ...options });
}

/** A fresh path on the test server answering `route`, and its URL. */
let paths = 0;
function publish(route: Parameters<DocumentServer["set"]>[1] & { document?: (url: string) => unknown }) {
  const path = `/doc-${++paths}/client.json`;
  const url = server.url(path);
  server.set(path, { ...route, body: route.document ? route.document(url) : route.body });
  return { url, fetches: () => server.requests.filter((asked) => asked === path).length };
}

describe("reading a client's metadata document", () => {
  it("reads Hermes's document as Hermes publishes it: its name, its loopback callbacks, a public client", async () => {
    server.set(HERMES, { body: hermesClientDocument(server.url(HERMES)) });
    const read = await reader().read(server.url(HERMES));
    expect(read).toMatchObject({
      ok: true,
      client: { clientId: server.url(HERMES), kind: "document", clientName: "Hermes Agent", scope: null },
    });
    if (!read.ok) throw new Error(read.description);
    expect(read.client.redirectUris).toContain("http://127.0.0.1:27890/callback");
    expect(read.client.redirectUris).toHaveLength(10);
  });

  it("checks the addresses a name resolves to, not the name: loopback only in development, private never", async () => {
    const { url, fetches } = publish({ document: (at) => hermesClientDocument(at) });
    // client.test looks public; it resolves to 127.0.0.1, so production refuses it before connecting.
    expect(await reader({ allowLoopback: false }).read(url)).toMatchObject({
      error: "invalid_client",
      description: expect.stringContaining("not a public address"),
    });
    for (const addresses of [
      ["10.0.0.5"],
      ["169.254.169.254"],
      ["192.168.1.1"],
      ["100.64.0.1"],
      ["0.0.0.0"],
      ["::ffff:10.0.0.5"],
      ["fc00::1"],
      ["fe80::1"],
      ["8.8.8.8", "10.0.0.5"],
    ]) {
      const refused = await reader({ resolveHost: resolvingTo(...addresses) }).read(url);
      expect(refused, addresses.join(",")).toMatchObject({ ok: false, error: "invalid_client" });
    }
    expect(fetches()).toBe(0);
    expect(addressProblem("93.184.216.34", "https:", false)).toBeNull();
    expect(addressProblem("2606:4700::1111", "https:", false)).toBeNull();
    expect(addressProblem("::1", "https:", false)).not.toBeNull();
    expect(addressProblem("127.0.0.1", "https:", true)).toBeNull();
  });

  it("refuses an address written in the URL as it refuses a resolved one", async () => {
    const literal = `https://127.0.0.1:${port}/doc/client.json`;
    expect(await reader({ allowLoopback: false }).read(literal)).toMatchObject({
      description: expect.stringContaining("not a public address"),
    });
    expect(await reader({ allowLoopback: false }).read(`https://[::1]:${port}/doc/client.json`)).toMatchObject({
      error: "invalid_client",
    });
  });

  it("takes http only in development, and then only from loopback", async () => {
    const plain = await serveClientDocuments({}, { protocol: "http", host: "agent.test" });
    try {
      const path = "/dev/client.json";
      plain.set(path, { body: hermesClientDocument(plain.url(path)) });
      expect(await reader({ allowLoopback: false }).read(plain.url(path))).toMatchObject({
        description: expect.stringContaining("https"),
      });
      expect(await reader().read(plain.url(path))).toMatchObject({ ok: true });
      expect(await reader({ resolveHost: resolvingTo("8.8.8.8") }).read(plain.url(path))).toMatchObject({
        description: expect.stringContaining("loopback"),
      });
    } finally {
      await plain.close();
    }
  });

  it("follows no redirect, and refuses an error status, a big or slow answer, or one that is not JSON", async () => {
    const target = publish({ document: (at) => hermesClientDocument(at) });
    const moved = publish({ status: 302, headers: { location: target.url } });
    expect(await reader().read(moved.url)).toMatchObject({
      description: expect.stringContaining("redirects are not followed"),
    });
    expect(target.fetches()).toBe(0);
    const missing = `${server.origin}/nothing/here.json`;
    expect(await reader().read(missing)).toMatchObject({ description: expect.stringContaining("answered 404") });
    const big = publish({ document: (at) => ({ ...hermesClientDocument(at), padding: "x".repeat(6000) }) });
    expect(await reader().read(big.url)).toMatchObject({ description: expect.stringContaining("over 5120 bytes") });
    const slow = publish({ document: (at) => hermesClientDocument(at), delayMs: 2000 });
    expect(await reader({ timeoutMs: 300 }).read(slow.url)).toMatchObject({
      description: expect.stringContaining("within 300 ms"),
    });
    const html = publish({ body: "<html></html>", headers: { "content-type": "text/html" } });
    expect(await reader().read(html.url)).toMatchObject({ description: expect.stringContaining("application/json") });
    const broken = publish({ body: "{not json" });
    expect(await reader().read(broken.url)).toMatchObject({ description: expect.stringContaining("not JSON") });
  });

  it("applies the document's own rules and registration's: its own URL, no secret, a name, good callbacks", async () => {
    const cases: Array<[(url: string) => unknown, string]> = [
      [(url) => ({ ...hermesClientDocument(url), client_id: `${url}x` }), "client_id is not the URL"],
      [(url) => ({ ...hermesClientDocument(url), client_secret: "s" }), "no client secret"],
      [(url) => ({ ...hermesClientDocument(url), client_name: undefined }), "no client_name"],
      [(url) => ({ ...hermesClientDocument(url), redirect_uris: ["http://evil.example/cb"] }), "redirect URI"],
      [(url) => ({ ...hermesClientDocument(url), token_endpoint_auth_method: "private_key_jwt" }), "public clients"],
      [() => [1, 2], "not a JSON object"],
    ];
    for (const [document, why] of cases) {
      const { url } = publish({ document });
      expect(await reader().read(url), why).toMatchObject({
        error: "invalid_client",
        description: expect.stringContaining(why),
      });
    }
  });

  it("caches as the document's headers say, at most a day, and reads again once that is over", async () => {
    let clock = 1_000_000;
    const documents = reader({ now: () => clock });
    const cached = publish({ document: (at) => hermesClientDocument(at), headers: { "cache-control": "max-age=60" } });
    expect(await documents.read(cached.url)).toMatchObject({ ok: true });
    expect(await documents.read(cached.url)).toMatchObject({ ok: true });
    expect(cached.fetches()).toBe(1);
    clock += 61_000;
    expect(await documents.read(cached.url)).toMatchObject({ ok: true });
    expect(cached.fetches()).toBe(2);

    const never = publish({ document: (at) => hermesClientDocument(at), headers: { "cache-control": "no-store" } });
    await documents.read(never.url);
    await documents.read(never.url);
    expect(never.fetches()).toBe(2);

    const year = publish({
      document: (at) => hermesClientDocument(at),
      headers: { "cache-control": `max-age=${365 * 86_400}` },
    });
    await documents.read(year.url);
    clock += 86_400_000 + 1;
    await documents.read(year.url);
    expect(year.fetches()).toBe(2);
  });

  it("shares one fetch among simultaneous reads, and stops fetching past its budget (cached ones still answer)", async () => {
    const once = publish({ document: (at) => hermesClientDocument(at), delayMs: 100 });
    const documents = reader();
    const answers = await Promise.all([documents.read(once.url), documents.read(once.url), documents.read(once.url)]);
    expect(answers.every((answer) => answer.ok)).toBe(true);
    expect(once.fetches()).toBe(1);

    let left = 1;
    const budgeted = reader({ limiter: { take: () => ({ allowed: left-- > 0 }) } });
    const first = publish({ document: (at) => hermesClientDocument(at), headers: { "cache-control": "max-age=600" } });
    const second = publish({ document: (at) => hermesClientDocument(at) });
    expect(await budgeted.read(first.url)).toMatchObject({ ok: true });
    expect(await budgeted.read(second.url)).toMatchObject({ ok: false, error: "temporarily_unavailable" });
    expect(await budgeted.read(first.url)).toMatchObject({ ok: true });
    expect(second.fetches()).toBe(0);
  });
});

describe("what may be a client ID URL", () => {
  it("https with a path, written in normal form; no query, fragment, credentials or dot segments", () => {
    expect(clientIdUrlProblem("https://client.test/oauth/client.json")).toBeNull();
    for (const bad of [
      "http://client.test/oauth/client.json",
      "https://client.test/",
      "https://client.test",
      "https://client.test/c.json?v=1",
      "https://client.test/c.json#x",
      "https://u:p@client.test/c.json",
      "https://client.test/a/../c.json",
      "https://client.test/./c.json",
      "https://CLIENT.test/c.json",
      "https://client.test:443/c.json",
      "not a url",
    ])
      expect(clientIdUrlProblem(bad), bad).not.toBeNull();
    expect(clientIdUrlProblem("http://127.0.0.1:5/c.json", true)).toBeNull();
  });
});
