import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { TokenRecord } from "@mnote/kernel";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import type { AuthInfo } from "@modelcontextprotocol/sdk/server/auth/types.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import { bearerSecret } from "@mnote/tools";
import { resolveToken, whoami } from "../auth";
import type { BridgeContext } from "../context";
import { headerValue } from "../ids";
import { createMcpServer } from "../mcp/server";
import { BodyTooLarge, readBody, refuseUnread, sendJson } from "./body";

interface Session {
  transport: StreamableHTTPServerTransport;
  server: Server;
  /** The token that opened the session (and so its user): the only one that may use it. */
  tokenId: string;
  userId: string;
  lastSeen: number;
}

/** A JSON-RPC error answer outside any request (id null), as the SDK's transport writes them. */
function rpcError(res: ServerResponse, status: number, code: number, message: string, headers: Record<string, string> = {}) {
  sendJson(res, status, { jsonrpc: "2.0", error: { code, message }, id: null }, headers);
}

export interface OriginPolicy {
  allowedHosts: string[];
  allowedOrigins: string[];
}

/**
 * `/mcp`: Streamable HTTP with stateful sessions, one MCP `Server` per session.
 * Every request passes, in order: Host and Origin checks (DNS rebinding), the bearer
 * token, and for an existing session the check that it is the token that opened it.
 * The session is never authentication: each tool call runs with its request's token.
 */
export class McpHttpEndpoint {
  private readonly sessions = new Map<string, Session>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    private readonly ctx: BridgeContext,
    private readonly policy: OriginPolicy,
  ) {
    this.sweeper = setInterval(() => this.sweep(), Math.min(60_000, ctx.settings.sessionIdleMs)).unref();
  }

  get sessionCount() {
    return this.sessions.size;
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
    const token = await resolveToken(this.ctx.kernel, req.headers.authorization);
    if (!token) {
      return rpcError(res, 401, -32001, "Unauthorized: a valid mnote bearer token is required", {
        "www-authenticate": 'Bearer realm="mnote"',
      });
    }
    // The gate's finding, for the tool handler (extra.authInfo): who the token is.
    (req as IncomingMessage & { auth?: AuthInfo }).auth = {
      token: bearerSecret(req.headers.authorization)!,
      clientId: token.id,
      scopes: [...token.scopes],
      extra: { whoami: whoami(token) },
    };
    const sessionId = headerValue(req.headers["mcp-session-id"]);

    if (req.method === "POST") return this.post(req, res, token, sessionId);
    if (req.method === "GET" || req.method === "DELETE") {
      const session = this.lookup(res, token, sessionId);
      if (session) await session.transport.handleRequest(req, res);
      return;
    }
    res.setHeader("allow", "GET, POST, DELETE");
    return rpcError(res, 405, -32000, "Method not allowed");
  }

  private lookup(res: ServerResponse, token: TokenRecord, sessionId: string | undefined): Session | null {
    if (!sessionId) {
      rpcError(res, 400, -32000, "Bad Request: Mcp-Session-Id header is required");
      return null;
    }
    const session = this.sessions.get(sessionId);
    if (!session) {
      rpcError(res, 404, -32001, "Session not found");
      return null;
    }
    if (session.tokenId !== token.id || session.userId !== token.userId) {
      rpcError(res, 403, -32000, "Forbidden: this session belongs to another token");
      return null;
    }
    session.lastSeen = Date.now();
    return session;
  }

  private async post(req: IncomingMessage, res: ServerResponse, token: TokenRecord, sessionId: string | undefined) {
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

    if (sessionId) {
      const session = this.lookup(res, token, sessionId);
      if (session) await session.transport.handleRequest(req, res, body);
      return;
    }
    const initializing = Array.isArray(body) ? body.some((m) => isInitializeRequest(m)) : isInitializeRequest(body);
    if (!initializing) return rpcError(res, 400, -32000, "Bad Request: no valid session id; send initialize first");
    if (this.sessions.size >= this.ctx.settings.maxSessions) {
      this.sweep();
      if (this.sessions.size >= this.ctx.settings.maxSessions) {
        return rpcError(res, 503, -32000, "Too many open MCP sessions; retry later", { "retry-after": "30" });
      }
    }

    const server = createMcpServer({ kernel: this.ctx.kernel, logger: this.ctx.logger, rateLimiter: this.ctx.limiter });
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        this.sessions.set(id, { transport, server, tokenId: token.id, userId: token.userId, lastSeen: Date.now() });
      },
    });
    transport.onclose = () => {
      if (transport.sessionId) this.sessions.delete(transport.sessionId);
    };
    await server.connect(transport);
    try {
      await transport.handleRequest(req, res, body);
    } finally {
      // The transport refused the initialize (e.g. a bad Accept header): nothing to keep.
      if (!transport.sessionId) await server.close();
    }
  }

  /** Close sessions nobody used for `sessionIdleMs`. */
  private sweep() {
    const cutoff = Date.now() - this.ctx.settings.sessionIdleMs;
    for (const [id, session] of this.sessions) {
      if (session.lastSeen < cutoff) {
        this.sessions.delete(id);
        void session.server.close();
      }
    }
  }

  async close() {
    clearInterval(this.sweeper);
    const sessions = [...this.sessions.values()];
    this.sessions.clear();
    await Promise.allSettled(sessions.map((s) => s.server.close()));
  }
}
