import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { once } from "node:events";
import { hashToken } from "@mnote/kernel";
import {
  type AuthInfo,
  classifyInboundRequest,
  createMcpHandler,
  isInitializeRequest,
  type Server,
  SUPPORTED_PROTOCOL_VERSIONS,
} from "@modelcontextprotocol/server";
import { retryAfterSeconds } from "@mnote/process";
import { type ProtectedResource, resourceMetadataUrl } from "@mnote/oauth";
import { bearerSecret, resolveToken } from "@mnote/tools";
import { clientAddress, whoami, type WhoAmI } from "../auth";
import type { BridgeContext } from "../context";
import { headerValue } from "../headers";
import { ExchangeTransport } from "../mcp/exchange-transport";
import { ModernAnswer, ModernServers } from "../mcp/modern-answer";
import { createMcpServer, type GateFindings } from "../mcp/server";
import { BodyTooLarge, isJsonContentType, readBody, refuseUnread, sendJson } from "./body";

/** `initialize`, checked by the SDK's guard only when the method says so (the guard parses the whole message). */
function isInitialize(message: unknown): boolean {
  return (message as { method?: unknown } | null)?.method === "initialize" && isInitializeRequest(message);
}

/** A JSON-RPC error answer outside any request (id null), as the SDK's transport writes them. */
function rpcError(
  res: ServerResponse,
  status: number,
  code: number,
  message: string,
  headers: Record<string, string> = {},
) {
  sendJson(res, status, { jsonrpc: "2.0", error: { code, message }, id: null }, headers);
}

export interface OriginPolicy {
  allowedHosts: string[];
  allowedOrigins: string[];
  /** /mcp as an OAuth protected resource (decision 0027); null: bearer tokens only. */
  oauth?: ProtectedResource | null;
}

const SESSION_ID = /^mcp_([A-Za-z0-9_-]{22})\.([0-9a-f]{32})$/;

/**
 * A session id bound to the token that opened it, checkable by any bridge without shared state:
 * `mcp_<random>.<HMAC(token hash, random)>`. Only a holder of that token can present a session id
 * that verifies with it, and no bridge has to remember it (decision 0014).
 */
function sessionMac(secret: string, nonce: string): string {
  return createHmac("sha256", hashToken(secret)).update(nonce).digest("hex").slice(0, 32);
}

export function newSessionId(secret: string): string {
  const nonce = randomBytes(16).toString("base64url");
  return `mcp_${nonce}.${sessionMac(secret, nonce)}`;
}

/** "ok": the token's own session; "foreign": well formed but another token's; "unknown": not a session id of ours. */
export function checkSessionId(sessionId: string, secret: string): "ok" | "foreign" | "unknown" {
  const match = SESSION_ID.exec(sessionId);
  if (!match) return "unknown";
  const expected = Buffer.from(sessionMac(secret, match[1]!));
  return timingSafeEqual(expected, Buffer.from(match[2]!)) ? "ok" : "foreign";
}

/** Who a request's bearer token is, or why the request is refused before anything else is read. */
export type Authentication =
  | { ok: true; secret: string; whoami: WhoAmI; authInfo: Omit<AuthInfo, "extra"> }
  | { ok: false; refuse: (res: ServerResponse) => void };

/**
 * `/mcp`: Streamable HTTP, stateless. One MCP server per bridge process answers every POST with
 * plain JSON through an ExchangeTransport; it keeps nothing between requests, so any bridge behind
 * a round-robin balancer can answer any request of a client (decision 0014). The session id still
 * scopes a client's calls (audit sessionId and runId, derived idempotency keys) but lives only in
 * the id itself. Every request passes, in order: Host and Origin checks (DNS rebinding), then
 * `authenticate` (the bearer token; a failing one meets its client address's failed-authentication limit),
 * then the check that its session id belongs to that token. The session is never authentication:
 * each tool call runs with its request's token. GET (a server-to-client stream) and DELETE answer
 * 405: the server sends nothing unasked and keeps no session to end; the SDK clients (TypeScript,
 * and Python's, which Hermes uses) accept both.
 *
 * Two protocol eras, one door (SDK 2.x, decision 0028): a 2025-era request (initialize, then calls
 * under the session id; Hermes's client, the SDK 1.x client, the 2.x client by default) is the one
 * server's; a request in the 2026-07-28 form (no initialize, no session, its `_meta` envelope names
 * the revision; the 2.x client negotiating) goes to the SDK's `createMcpHandler`, which answers
 * `server/discover` and each request on a server serving that exchange alone (kept for a later one once it closes:
 * ModernServers). Both run the same tools on the same router.
 */
export class McpHttpEndpoint {
  private readonly transport = new ExchangeTransport();
  private readonly server: Server;
  private readonly ready: Promise<void>;
  /** The 2026-07-28 revision: the SDK's handler, a server of its own per exchange (that revision has no session). */
  private readonly modern: ReturnType<typeof createMcpHandler>;
  /** The servers it serves on: one exchange at a time each, kept for the next exchange once closed. */
  private readonly modernServers: ModernServers;

  constructor(
    private readonly ctx: BridgeContext,
    private readonly policy: OriginPolicy,
  ) {
    const serverOptions = {
      kernel: ctx.kernel,
      logger: ctx.logger,
      rateLimiter: ctx.limiter,
      toolsSettings: ctx.settings.tools,
    };
    this.server = createMcpServer({ ...serverOptions, answers: this.transport.answers });
    this.ready = this.server.connect(this.transport);
    this.modernServers = new ModernServers(() => createMcpServer(serverOptions));
    this.modern = createMcpHandler(
      ({ authInfo }) => this.modernServers.take((authInfo?.extra as GateFindings | undefined)?.modernAnswer),
      {
        legacy: "reject",
        onerror: (error) => ctx.logger.debug({ err: error.message, transport: "mcp-http" }, "mcp request refused"),
      },
    );
  }

  async handle(req: IncomingMessage, res: ServerResponse) {
    const host = req.headers.host?.toLowerCase();
    if (!host || !this.policy.allowedHosts.includes(host)) {
      return rpcError(res, 403, -32000, "Forbidden: Host header not allowed (DNS rebinding protection)");
    }
    const origin = headerValue(req.headers.origin);
    if (origin !== undefined && !this.policy.allowedOrigins.includes(origin)) {
      return rpcError(res, 403, -32000, "Forbidden: Origin not allowed (DNS rebinding protection)");
    }
    const auth = await this.authenticate(req);
    if (!auth.ok) return auth.refuse(res);

    if (req.method === "POST") return this.post(req, res, auth);
    res.setHeader("allow", "POST");
    if (req.method === "GET")
      return rpcError(res, 405, -32000, "Method not allowed: this server sends no messages outside a response");
    if (req.method === "DELETE")
      return rpcError(res, 405, -32000, "Method not allowed: sessions are stateless, there is nothing to end");
    return rpcError(res, 405, -32000, "Method not allowed");
  }

  /**
   * The door's one authentication step: the bearer token, then, only for a token that resolves to
   * nothing, the client address's failed-authentication budget (429 once used up, else 401). Kept apart from the MCP handling so a change of how tokens are resolved or
   * challenged touches only this function.
   */
  async authenticate(req: IncomingMessage): Promise<Authentication> {
    const token = await resolveToken(this.ctx.kernel, req.headers.authorization);
    // A token an OAuth grant issued works only at the resource it was issued for (RFC 8707); a token the CLI or
    // the panel minted names no resource and works at every agent door, as before.
    const foreign = token?.resource !== undefined && token.resource !== this.policy.oauth?.resource;
    if (!token || foreign) {
      // Only a failing attempt meets the address's failed-authentication budget (issue 20): a valid token
      // from an address full of other clients' failures is never refused for them.
      const address = clientAddress(req, this.ctx.settings.trustedProxies);
      const limited = (await this.ctx.authFailures?.failedAttempt(address)) ?? { allowed: true };
      if (!limited.allowed) {
        const retryAfter = retryAfterSeconds(limited.retryAfterMs);
        return {
          ok: false,
          refuse: (res) =>
            rpcError(res, 429, -32000, "Too many failed authentications from this address; retry later", {
              "retry-after": retryAfter,
            }),
        };
      }
      const challenge = this.challenge(
        !req.headers.authorization
          ? null
          : foreign
            ? "the token was issued for another resource"
            : "the token is not valid, revoked or expired",
      );
      return {
        ok: false,
        refuse: (res) =>
          rpcError(
            res,
            401,
            -32001,
            foreign
              ? "Unauthorized: this token was issued for another resource"
              : "Unauthorized: a valid mnote bearer token is required",
            { "www-authenticate": challenge },
          ),
      };
    }
    const secret = bearerSecret(req.headers.authorization)!;
    return {
      ok: true,
      secret,
      whoami: whoami(token),
      authInfo: { token: secret, clientId: token.id, scopes: [...token.scopes] },
    };
  }

  /**
   * The 401's challenge (RFC 6750 §3, RFC 9728 §5.1): where the protected-resource metadata is, so an MCP client
   * with no token can find the authorization server; `error="invalid_token"` when a token was sent and refused.
   */
  private challenge(problem: string | null): string {
    const parts = ['Bearer realm="mnote"'];
    if (this.policy.oauth) parts.push(`resource_metadata="${resourceMetadataUrl(this.policy.oauth)}"`);
    if (problem) parts.push(`error="invalid_token"`, `error_description="${problem}"`);
    return parts.join(", ");
  }

  private async post(req: IncomingMessage, res: ServerResponse, auth: Extract<Authentication, { ok: true }>) {
    if (!isJsonContentType(headerValue(req.headers["content-type"]))) {
      return rpcError(res, 415, -32000, "Unsupported Media Type: Content-Type must be application/json");
    }
    let body: unknown;
    try {
      const raw = await readBody(req, this.ctx.settings.bodyLimit);
      body = JSON.parse(raw.toString("utf8"));
    } catch (error) {
      if (error instanceof BodyTooLarge) {
        refuseUnread(req, res);
        return rpcError(res, 413, -32600, "Request body too large");
      }
      if (error instanceof SyntaxError) return rpcError(res, 400, -32700, "Parse error: invalid JSON");
      return void req.socket.destroy();
    }

    let sessionId = headerValue(req.headers["mcp-session-id"]);
    const initializing = Array.isArray(body) ? body.some(isInitialize) : isInitialize(body);
    // A request in the 2026-07-28 revision's form (its `_meta` envelope names the revision) goes to the SDK's handler
    // for that revision; every other request is the 2025 era's, answered by this process's one server. One that
    // names a session is in a 2025-era session (the 2026-07-28 revision has none), so only the others are classified.
    // An `initialize` is the 2025 handshake whatever its MCP-Protocol-Version header says: the version is negotiated
    // in its body. Hermes seeds that header with its MCP SDK's latest revision on every request, the handshake too
    // (tools/mcp_tool.py `_run_http`; 2026-07-28 once it runs on mcp 2.x), and the SDK's classifier answers such a
    // request 400 "headers and body disagree" — which would leave Hermes unable to connect at all.
    if (sessionId === undefined && !initializing) {
      const era = classifyInboundRequest({
        httpMethod: "POST",
        protocolVersionHeader: headerValue(req.headers["mcp-protocol-version"]),
        mcpMethodHeader: headerValue(req.headers["mcp-method"]),
        mcpNameHeader: headerValue(req.headers["mcp-name"]),
        body,
      });
      if (era.kind !== "legacy") return this.postModern(req, res, auth, body);
    }

    const accept = headerValue(req.headers.accept) ?? "";
    if (!accept.includes("application/json") || !accept.includes("text/event-stream")) {
      return rpcError(
        res,
        406,
        -32000,
        "Not Acceptable: Client must accept both application/json and text/event-stream",
      );
    }
    if (initializing) {
      sessionId = newSessionId(auth.secret);
    } else if (!sessionId) {
      return rpcError(res, 400, -32000, "Bad Request: Mcp-Session-Id header is required; send initialize first");
    } else {
      const verdict = checkSessionId(sessionId, auth.secret);
      if (verdict === "unknown") return rpcError(res, 404, -32001, "Session not found");
      if (verdict === "foreign") return rpcError(res, 403, -32000, "Forbidden: this session belongs to another token");
      const version = headerValue(req.headers["mcp-protocol-version"]);
      if (version !== undefined && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) {
        return rpcError(
          res,
          400,
          -32000,
          `Bad Request: Unsupported protocol version: ${version} (supported versions: ${SUPPORTED_PROTOCOL_VERSIONS.join(", ")})`,
        );
      }
    }

    await this.ready;
    const answer = await this.transport.exchange(body, { authInfo: this.findings(req, auth, sessionId) });
    if (answer.kind === "invalid") return rpcError(res, 400, -32700, answer.message);
    // The session id travels only in the header of initialize's answer; the client keeps it.
    const headers: Record<string, string> = initializing ? { "mcp-session-id": sessionId } : {};
    if (answer.kind === "accepted") {
      res.writeHead(202, headers);
      return res.end();
    }
    sendJson(res, 200, answer.json, headers);
  }

  /** What the gate found, for the server's handlers (`authInfo.extra`); `sessionId` null in the 2026-07-28 revision. */
  private findings(
    req: IncomingMessage,
    auth: Extract<Authentication, { ok: true }>,
    sessionId: string | null,
    modernAnswer?: ModernAnswer,
  ) {
    const findings: GateFindings = {
      whoami: auth.whoami,
      sessionId,
      headers: req.headers,
      resource: this.policy.oauth?.resource ?? null,
      ...(modernAnswer ? { modernAnswer } : {}),
    };
    return { ...auth.authInfo, extra: { ...findings } };
  }

  /**
   * A 2026-07-28 request: the SDK's handler validates its envelope and headers, answers `server/discover`, and runs
   * the request on a server serving it alone. It is a Web `Request`/`Response` handler, so the Node request is wrapped (its
   * body already parsed, handed over as is). No session: that revision has none, each request stands alone.
   */
  private async postModern(
    req: IncomingMessage,
    res: ServerResponse,
    auth: Extract<Authentication, { ok: true }>,
    body: unknown,
  ) {
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) {
      if (value === undefined) continue;
      for (const one of Array.isArray(value) ? value : [value]) headers.append(name, one);
    }
    const answer = new ModernAnswer();
    const response = await this.modern.fetch(
      new Request(`http://${req.headers.host}${req.url ?? "/mcp"}`, { method: "POST", headers }),
      { authInfo: this.findings(req, auth, null, answer), parsedBody: body },
    );
    const out: Record<string, string> = {};
    response.headers.forEach((value, name) => (out[name] = value));
    const written = answer.body(response);
    if (written) {
      out["content-length"] = String(written.length);
      res.writeHead(response.status, out);
      return void res.end(written);
    }
    res.writeHead(response.status, out);
    if (!response.body) return void res.end();
    // Streamed, not buffered: an SSE answer (a subscriptions/listen stream) stays open until either side ends it.
    // Read with the stream's own reader rather than `Readable.fromWeb`, whose parameter is node:stream/web's type:
    // the panel type-checks this file with the DOM's ReadableStream, which is not assignable to it.
    const reader = response.body.getReader();
    res.once("close", () => void reader.cancel().catch(() => {}));
    try {
      for (;;) {
        const { done, value } = (await reader.read()) as { done: boolean; value?: Uint8Array };
        if (done) break;
        if (!res.write(value)) await once(res, "drain");
      }
      res.end();
    } catch {
      // The client went away or the SDK's stream failed mid-answer: nothing more can be said on this response.
      res.destroy();
    }
  }

  async close() {
    await this.modern.close();
    await this.server.close();
  }
}
