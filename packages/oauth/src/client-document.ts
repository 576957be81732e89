import { lookup } from "node:dns/promises";
import type { LookupAddress } from "node:dns";
import http from "node:http";
import https from "node:https";
import type { LookupFunction } from "node:net";
import CachePolicy from "http-cache-semantics";
import ipaddr from "ipaddr.js";
import { checkClientMetadata } from "./client-metadata";
import { oauthError, type OAuthError, quoted } from "./errors";
import type { OAuthClient } from "./client";

/**
 * Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document, MCP 2026-07-28's preferred way for a
 * client to identify itself): the client_id is an https URL, and the document there is the client's metadata. The
 * authorization server fetches it — so this module is where the panel reaches out to an address a stranger chose,
 * and everything about that fetch is bounded: https only (http only to a loopback address, and only behind the
 * operator's development switch), every resolved address public (checked on the addresses the connection uses, not
 * on the name), no redirects, a size cap, a timeout, a budget of fetches, and a cache that honours the document's
 * HTTP caching headers up to a day.
 */

/** Where clients identified by a document URL are read from (the panel's `ClientDocuments`, or none). */
export interface ClientDocumentSource {
  /** The client whose document is at `clientId`, checked by the rules registration uses; or why not. */
  read(clientId: string): Promise<{ ok: true; client: OAuthClient } | OAuthError>;
  /** Is `clientId` one this source reads (an http(s) URL), rather than an id the server issued at registration? */
  handles(clientId: string): boolean;
}

export interface ClientDocumentsOptions {
  /**
   * Development only (MNOTE_OAUTH_CLIENT_DOCUMENTS=loopback): documents may also come from loopback addresses, over
   * http too. Never in production: it lets a client ID name a service on the panel's own machine.
   */
  allowLoopback?: boolean;
  /** The whole exchange, connection to last byte (default 5 s). */
  timeoutMs?: number;
  /** The largest document read (default 5 KiB, the draft's suggestion); a larger one is refused. */
  maxBytes?: number;
  /** The longest a document is kept, whatever its headers say (default a day). */
  maxCacheSeconds?: number;
  /** Documents kept at once (default 1000); the oldest goes first. */
  maxEntries?: number;
  /** A budget of network fetches (cached documents cost nothing); past it, `temporarily_unavailable`. */
  limiter?: { take(key: string): { allowed: boolean } | Promise<{ allowed: boolean }> } | null;
  /** Resolves a host name to every address (default: the system resolver). Tests name their own hosts with it. */
  resolveHost?: (hostname: string) => Promise<LookupAddress[]>;
  /** Extra certificate authorities for https (tests' own); default: Node's. */
  ca?: string | Buffer;
  /** The clock the cache reads (ms); tests move it. */
  now?: () => number;
}

export const CLIENT_DOCUMENT_DEFAULTS = {
  timeoutMs: 5_000,
  maxBytes: 5 * 1024,
  maxCacheSeconds: 24 * 3600,
  maxEntries: 1000,
} as const;

/** The fetch budget's key in the panel's rate limiter. */
export const CLIENT_DOCUMENT_BUDGET_KEY = "oauth:client-document";

/** A client_id that is a URL: read from its document. Registered clients have ids the server made (`oac_…`). */
export const isClientIdUrl = (clientId: string) => /^https?:\/\//i.test(clientId);

/**
 * Why this client_id cannot be a document URL, or null: https (http only to loopback in development), a path, no
 * query, fragment or credentials, and written exactly as the URL standard writes it — the server compares client IDs
 * as strings and never normalizes them, so a dot segment or an upper-case host would name two clients at once.
 */
export function clientIdUrlProblem(clientId: string, allowLoopback = false): string | null {
  let url: URL;
  try {
    url = new URL(clientId);
  } catch {
    return "the client_id is not a URL";
  }
  if (url.protocol !== "https:" && !(allowLoopback && url.protocol === "http:"))
    return "a client ID metadata document is served over https";
  if (url.username || url.password) return "a client ID URL carries no credentials";
  if (clientId.includes("#")) return "a client ID URL has no fragment";
  if (url.search || clientId.includes("?")) return "a client ID URL has no query";
  if (url.pathname === "/") return "a client ID URL has a path (https://host/…/client.json)";
  if (url.href !== clientId) return `a client ID URL is written in normal form (${quoted(url.href, 120)})`;
  return null;
}

/** Why the panel will not connect to this address for a document, or null. */
export function addressProblem(address: string, protocol: string, allowLoopback: boolean): string | null {
  let range: string;
  try {
    // process() reads an IPv4-mapped IPv6 address (::ffff:10.0.0.1) as the IPv4 address it is.
    range = ipaddr.process(address).range();
  } catch {
    return "its host has no usable address";
  }
  if (allowLoopback && range === "loopback") return null;
  if (protocol === "http:") return "http is allowed only to a loopback address, in development";
  return range === "unicast" ? null : "its host is not a public address";
}

class Refused extends Error {}

interface Fetched {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

interface Cached {
  client: OAuthClient;
  expiresAt: number;
}

/** The panel's reader of client ID metadata documents: one per process, its cache shared by every request. */
export class ClientDocuments implements ClientDocumentSource {
  private readonly cache = new Map<string, Cached>();
  private readonly pending = new Map<string, Promise<{ ok: true; client: OAuthClient } | OAuthError>>();
  private readonly options: Required<Omit<ClientDocumentsOptions, "limiter" | "ca">> &
    Pick<ClientDocumentsOptions, "limiter" | "ca">;

  constructor(options: ClientDocumentsOptions = {}) {
    this.options = {
      ...CLIENT_DOCUMENT_DEFAULTS,
      allowLoopback: false,
      resolveHost: (hostname) => lookup(hostname, { all: true, verbatim: true }),
      now: () => Date.now(),
      ...options,
    };
  }

  handles(clientId: string): boolean {
    return isClientIdUrl(clientId);
  }

  async read(clientId: string): Promise<{ ok: true; client: OAuthClient } | OAuthError> {
    const problem = clientIdUrlProblem(clientId, this.options.allowLoopback);
    if (problem) return oauthError("invalid_client", problem);
    const cached = this.cache.get(clientId);
    if (cached && cached.expiresAt > this.options.now()) return { ok: true, client: cached.client };
    if (cached) this.cache.delete(clientId);
    // Requests for the same document at the same moment share one fetch.
    let pending = this.pending.get(clientId);
    if (!pending) {
      pending = this.fetchAndCheck(clientId).finally(() => this.pending.delete(clientId));
      this.pending.set(clientId, pending);
    }
    return pending;
  }

  private async fetchAndCheck(clientId: string): Promise<{ ok: true; client: OAuthClient } | OAuthError> {
    const budget = await this.options.limiter?.take(CLIENT_DOCUMENT_BUDGET_KEY);
    if (budget && !budget.allowed)
      return oauthError("temporarily_unavailable", "too many client metadata documents to read right now; retry later");
    let fetched: Fetched;
    try {
      fetched = await this.fetch(new URL(clientId));
    } catch (error) {
      const why = error instanceof Refused ? error.message : "it could not be fetched";
      return oauthError(
        "invalid_client",
        `the client's metadata document ${quoted(clientId, 120)} was refused: ${why}`,
      );
    }
    const checked = checkDocument(clientId, fetched.body);
    if (!checked.ok) return checked;
    const policy = new CachePolicy(
      { url: clientId, method: "GET", headers: { accept: "application/json" } },
      { status: fetched.status, headers: fetched.headers },
      { shared: true },
    );
    const keepMs = policy.storable() ? Math.min(policy.timeToLive(), this.options.maxCacheSeconds * 1000) : 0;
    if (keepMs > 0) {
      if (this.cache.size >= this.options.maxEntries) this.cache.delete(this.cache.keys().next().value!);
      this.cache.set(clientId, { client: checked.client, expiresAt: this.options.now() + keepMs });
    }
    return checked;
  }

  /** One GET, no redirects followed, connected only to addresses `addressProblem` accepts. */
  private fetch(url: URL): Promise<Fetched> {
    const { allowLoopback, resolveHost, timeoutMs, maxBytes, ca } = this.options;
    const host = url.hostname.replace(/^\[|\]$/g, "");
    // An address written in the URL is never looked up: check it here. A name is checked in `lookup`, on the very
    // addresses the socket then connects to (no second resolution a rebinding DNS server could answer otherwise).
    if (ipaddr.isValid(host)) {
      const problem = addressProblem(host, url.protocol, allowLoopback);
      if (problem) return Promise.reject(new Refused(problem));
    }
    const guardedLookup: LookupFunction = (hostname, options, callback) => {
      resolveHost(hostname).then(
        (addresses) => {
          const problem = addresses.length
            ? addresses.map((entry) => addressProblem(entry.address, url.protocol, allowLoopback)).find(Boolean)
            : "its host has no address";
          if (problem) return callback(new Refused(problem), "", 4);
          const family = options.family === 6 ? 6 : options.family === 4 ? 4 : 0;
          const usable = addresses.filter((entry) => family === 0 || entry.family === family);
          if (options.all) return (callback as (e: null, a: LookupAddress[]) => void)(null, usable);
          const first = usable[0] ?? addresses[0]!;
          callback(null, first.address, first.family);
        },
        (error: NodeJS.ErrnoException) => callback(error, "", 4),
      );
    };
    const transport = url.protocol === "https:" ? https : http;
    return new Promise<Fetched>((resolve, reject) => {
      const request = transport.request(
        url,
        {
          method: "GET",
          agent: false,
          lookup: guardedLookup,
          headers: { accept: "application/json", "user-agent": "mnote-oauth/1 (client ID metadata document)" },
          signal: AbortSignal.timeout(timeoutMs),
          ...(ca && url.protocol === "https:" ? { ca } : {}),
        },
        (response) => {
          const status = response.statusCode ?? 0;
          const fail = (why: string) => {
            response.destroy();
            reject(new Refused(why));
          };
          if (status >= 300 && status < 400) return fail(`it answered ${status}: redirects are not followed`);
          if (status !== 200) return fail(`it answered ${status}`);
          const type = (response.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase();
          if (type !== "application/json" && !type.endsWith("+json")) return fail("it is not application/json");
          if (Number(response.headers["content-length"] ?? 0) > maxBytes) return fail(`it is over ${maxBytes} bytes`);
          const chunks: Buffer[] = [];
          let size = 0;
          response.on("data", (chunk: Buffer) => {
            size += chunk.length;
            if (size > maxBytes) return fail(`it is over ${maxBytes} bytes`);
            chunks.push(chunk);
          });
          response.on("end", () =>
            resolve({ status, headers: response.headers, body: Buffer.concat(chunks).toString("utf8") }),
          );
          response.on("error", (error) => reject(error instanceof Refused ? error : new Refused("it did not finish")));
        },
      );
      request.on("error", (error) => {
        if (error instanceof Refused) return reject(error);
        const timedOut = error.name === "AbortError" || error.name === "TimeoutError";
        reject(new Refused(timedOut ? `it did not answer within ${timeoutMs} ms` : "it could not be reached"));
      });
      request.end();
    });
  }
}

/**
 * The document's own rules (the draft's §4 and the MCP spec): JSON naming exactly this client_id, a public client
 * without secrets, a name, and the redirect URIs, grant types and scopes registration accepts.
 */
export function checkDocument(clientId: string, body: string): { ok: true; client: OAuthClient } | OAuthError {
  const refuse = (why: string) =>
    oauthError("invalid_client", `the client's metadata document ${quoted(clientId, 120)} was refused: ${why}`);
  let document: unknown;
  try {
    document = JSON.parse(body);
  } catch {
    return refuse("it is not JSON");
  }
  if (typeof document !== "object" || document === null || Array.isArray(document))
    return refuse("it is not a JSON object");
  const fields = document as Record<string, unknown>;
  if (fields.client_id !== clientId) return refuse("its client_id is not the URL it was fetched from");
  if ("client_secret" in fields || "client_secret_expires_at" in fields)
    return refuse("a metadata document holds no client secret");
  if (typeof fields.client_name !== "string" || !fields.client_name.trim()) return refuse("it has no client_name");
  const checked = checkClientMetadata(document);
  if (!checked.ok) return refuse(checked.description);
  const { clientName, redirectUris, scope } = checked.metadata;
  return { ok: true, client: { clientId, kind: "document", clientName, redirectUris, scope } };
}
