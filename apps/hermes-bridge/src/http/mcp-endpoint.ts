import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { hashToken } from "@mnote/kernel";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { AuthInfo } from "@modelcontextprotocol/sdk/server/auth/types.js";
import { isInitializeRequest, SUPPORTED_PROTOCOL_VERSIONS } from "@modelcontextprotocol/sdk/types.js";
import { retryAfterSeconds } from "@mnote/process";
import { bearerSecret, resolveToken } from "@mnote/tools";
import { clientAddress, whoami, type WhoAmI } from "../auth";
import type { BridgeContext } from "../context";
import { headerValue } from "../headers";
import { ExchangeTransport } from "../mcp/exchange-transport";
import { createMcpServer, type GateFindings } from "../mcp/server";
import { BodyTooLarge, isJsonContentType, readBody, refuseUnread, sendJson } from "./body";

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
 * `authenticate` (the failed-authentication limit of its client address and the bearer token),
 * then the check that its session id belongs to that token. The session is never authentication:
 * each tool call runs with its request's token. GET (a server-to-client stream) and DELETE answer
 * 405: the server sends nothing unasked and keeps no session to end; the SDK clients (TypeScript,
 * and Python's, which Hermes uses) accept both.
 */
export class McpHttpEndpoint {
  private readonly transport = new ExchangeTransport();
  private readonly server: Server;
  private readonly ready: Promise<void>;

  constructor(
    private readonly ctx: BridgeContext,
    private readonly policy: OriginPolicy,
  ) {
    this.server = createMcpServer({
      kernel: ctx.kernel,
      logger: ctx.logger,
      rateLimiter: ctx.limiter,
      toolsSettings: ctx.settings.tools,
    });
    this.ready = this.server.connect(this.transport);
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
   * The door's one authentication step: the client address's failed-authentication budget, then
   * the bearer token. Kept apart from the MCP handling so a change of how tokens are resolved or
   * challenged touches only this function.
   */
  async authenticate(req: IncomingMessage): Promise<Authentication> {
    const address = clientAddress(req, this.ctx.settings.trustedProxies);
    const limited = this.ctx.authFailures?.check(address);
    if (limited && !limited.allowed) {
      const retryAfter = retryAfterSeconds(limited.retryAfterMs);
      return {
        ok: false,
        refuse: (res) =>
          rpcError(res, 429, -32000, "Too many failed authentications from this address; retry later", {
            "retry-after": retryAfter,
          }),
      };
    }
    const token = await resolveToken(this.ctx.kernel, req.headers.authorization);
    if (!token) {
      await this.ctx.authFailures?.fail(address);
      return {
        ok: false,
        refuse: (res) =>
          rpcError(res, 401, -32001, "Unauthorized: a valid mnote bearer token is required", {
            "www-authenticate": 'Bearer realm="mnote"',
          }),
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

  private async post(req: IncomingMessage, res: ServerResponse, auth: Extract<Authentication, { ok: true }>) {
    const accept = headerValue(req.headers.accept) ?? "";
    if (!accept.includes("application/json") || !accept.includes("text/event-stream")) {
      return rpcError(
        res,
        406,
        -32000,
        "Not Acceptable: Client must accept both application/json and text/event-stream",
      );
    }
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

    const initializing = Array.isArray(body) ? body.some((m) => isInitializeRequest(m)) : isInitializeRequest(body);
    let sessionId = headerValue(req.headers["mcp-session-id"]);
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
    const findings: GateFindings = { whoami: auth.whoami, sessionId };
    const answer = await this.transport.exchange(body, {
      authInfo: { ...auth.authInfo, extra: { ...findings } },
      requestInfo: { headers: req.headers },
    });
    if (answer.kind === "invalid") return rpcError(res, 400, -32700, answer.message);
    // The session id travels only in the header of initialize's answer; the client keeps it.
    const headers: Record<string, string> = initializing ? { "mcp-session-id": sessionId } : {};
    if (answer.kind === "accepted") {
      res.writeHead(202, headers);
      return res.end();
    }
    sendJson(res, 200, answer.json, headers);
  }

  async close() {
    await this.server.close();
  }
}
