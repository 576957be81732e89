import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { hashToken } from "@mnote/kernel";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import type { AuthInfo } from "@modelcontextprotocol/sdk/server/auth/types.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import { bearerSecret, resolveToken } from "@mnote/tools";
import { clientAddress, whoami } from "../auth";
import type { BridgeContext } from "../context";
import { headerValue } from "../headers";
import { createMcpServer } from "../mcp/server";
import { BodyTooLarge, readBody, refuseUnread, sendJson } from "./body";

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

/**
 * `/mcp`: Streamable HTTP, stateless. Every POST is served by a fresh MCP server and transport and
 * answered with plain JSON, so any bridge behind a round-robin balancer can answer any request of
 * a client (decision 0014). The session id still scopes a client's calls (audit sessionId and
 * runId, derived idempotency keys) but lives only in the id itself. Every request passes, in
 * order: Host and Origin checks (DNS rebinding), the failed-authentication limit of its client
 * address, the bearer token, and the check that its session id belongs to that token. The
 * session is never authentication: each tool call runs with its request's token. GET (a
 * server-to-client stream) and DELETE answer 405: the server sends nothing unasked and keeps no
 * session to end; the SDK clients (TypeScript, and Python's, which Hermes uses) accept both.
 */
export class McpHttpEndpoint {
  constructor(
    private readonly ctx: BridgeContext,
    private readonly policy: OriginPolicy,
  ) {}

  async handle(req: IncomingMessage, res: ServerResponse) {
    const host = req.headers.host?.toLowerCase();
    if (!host || !this.policy.allowedHosts.includes(host)) {
      return rpcError(res, 403, -32000, "Forbidden: Host header not allowed (DNS rebinding protection)");
    }
    const origin = headerValue(req.headers.origin);
    if (origin !== undefined && !this.policy.allowedOrigins.includes(origin)) {
      return rpcError(res, 403, -32000, "Forbidden: Origin not allowed (DNS rebinding protection)");
    }
    const address = clientAddress(req, this.ctx.settings.trustedProxies);
    const limited = this.ctx.authFailures?.check(address);
    if (limited && !limited.allowed) {
      return rpcError(res, 429, -32000, "Too many failed authentications from this address; retry later", {
        "retry-after": String(Math.max(1, Math.ceil(limited.retryAfterMs / 1000))),
      });
    }
    const token = await resolveToken(this.ctx.kernel, req.headers.authorization);
    if (!token) {
      await this.ctx.authFailures?.fail(address);
      return rpcError(res, 401, -32001, "Unauthorized: a valid mnote bearer token is required", {
        "www-authenticate": 'Bearer realm="mnote"',
      });
    }
    const secret = bearerSecret(req.headers.authorization)!;
    // The gate's finding, for the tool handler (extra.authInfo): who the token is.
    (req as IncomingMessage & { auth?: AuthInfo }).auth = {
      token: secret,
      clientId: token.id,
      scopes: [...token.scopes],
      extra: { whoami: whoami(token) },
    };

    if (req.method === "POST") return this.post(req, res, secret);
    res.setHeader("allow", "POST");
    if (req.method === "GET")
      return rpcError(res, 405, -32000, "Method not allowed: this server sends no messages outside a response");
    if (req.method === "DELETE")
      return rpcError(res, 405, -32000, "Method not allowed: sessions are stateless, there is nothing to end");
    return rpcError(res, 405, -32000, "Method not allowed");
  }

  private async post(req: IncomingMessage, res: ServerResponse, secret: string) {
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
      sessionId = newSessionId(secret);
    } else if (!sessionId) {
      return rpcError(res, 400, -32000, "Bad Request: Mcp-Session-Id header is required; send initialize first");
    } else {
      const verdict = checkSessionId(sessionId, secret);
      if (verdict === "unknown") return rpcError(res, 404, -32001, "Session not found");
      if (verdict === "foreign") return rpcError(res, 403, -32000, "Forbidden: this session belongs to another token");
    }

    const server = createMcpServer({
      kernel: this.ctx.kernel,
      logger: this.ctx.logger,
      rateLimiter: this.ctx.limiter,
      toolsSettings: this.ctx.settings.tools,
      sessionId,
    });
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    // The transport writes no session header when stateless; the client keeps this one.
    if (initializing) res.setHeader("mcp-session-id", sessionId);
    res.on("close", () => void server.close());
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  }

  async close() {
    // Nothing is kept between requests.
  }
}
