import { randomUUID } from "node:crypto";
import { canonicalToolName, type OutputEnvelope, TOOL_ERROR_MESSAGES } from "@mnote/contract";
import type { KernelAdapter } from "@mnote/kernel";
import type { ToolsSettings } from "@mnote/tools";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  type CallToolResult,
  CallToolRequestSchema,
  ListToolsRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { rateLimitKey, resolveToken, whoami, type WhoAmI } from "../auth";
import { bridgeFailure } from "../envelope";
import { headerValue, safeId } from "../ids";
import { invokeTool } from "../invoke";
import { type BridgeLogger, createLogger, logToolCall } from "../logging";
import { envelopeFromModelArguments, UNAUTHENTICATED_IDENTITY } from "../model-envelope";
import type { RateLimiter } from "../rate-limit";
import { newTraceId, traceIdFromTraceparent } from "../trace";
import { mcpToolList } from "./tools";

export const SERVER_INFO = { name: "mnote", version: "0.1.0" };

export interface McpServerOptions {
  kernel: KernelAdapter;
  logger?: BridgeLogger;
  rateLimiter?: RateLimiter | null;
  /**
   * stdio: the credential for every call (from MNOTE_TOKEN). Over HTTP leave it out:
   * each call then uses its own request's `Authorization` header.
   */
  authorization?: string | null;
  /** stdio: the per-process session id; HTTP: the request's MCP session id (the transport is stateless). */
  sessionId?: string;
  /** The process's validated router settings. */
  toolsSettings?: ToolsSettings;
}

/** What the HTTP gate found for the request's token (`req.auth.extra.whoami`). */
function gateIdentity(extra: { authInfo?: { extra?: Record<string, unknown> } }): WhoAmI | null {
  return (extra.authInfo?.extra?.whoami as WhoAmI | undefined) ?? null;
}

function toResult(output: OutputEnvelope): CallToolResult {
  return {
    structuredContent: output as unknown as Record<string, unknown>,
    content: [{ type: "text", text: JSON.stringify(output) }],
    isError: !output.ok,
  };
}

/**
 * One MCP server (one per HTTP session, one for stdio) over the router. `tools/list`
 * is the contract's listing; `tools/call` turns the model's flat arguments into the
 * full envelope and calls the router with it.
 */
export function createMcpServer(options: McpServerOptions): Server {
  const logger = options.logger ?? createLogger();
  const transport = options.authorization !== undefined ? "mcp-stdio" : "mcp-http";
  const fallbackSession = options.sessionId ?? `mcp_${randomUUID()}`;
  const tools = mcpToolList();
  const server = new Server(SERVER_INFO, {
    capabilities: { tools: {} },
    instructions:
      "mnote page tools. Read a page with mnote_page_get before editing; call write tools with dryRun: true first when the user should review the change.",
  });

  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }));

  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const startedAt = performance.now();
    const headers = extra.requestInfo?.headers ?? {};
    const authorization =
      options.authorization !== undefined ? options.authorization : (headerValue(headers.authorization) ?? null);
    const meta = (request.params._meta ?? {}) as Record<string, unknown>;
    const sessionId = extra.sessionId ?? fallbackSession;
    const traceId =
      traceIdFromTraceparent(meta.traceparent) ??
      safeId(meta.traceId) ??
      traceIdFromTraceparent(headers.traceparent) ??
      newTraceId();
    const runtime = {
      sessionId,
      runId: safeId(meta.runId) ?? sessionId,
      toolCallId: safeId(String(extra.requestId)) ?? randomUUID(),
      traceId,
    };
    const name = request.params.name;
    const modelArguments = (request.params.arguments ?? {}) as Record<string, unknown>;

    if (options.rateLimiter) {
      const decision = options.rateLimiter.take(rateLimitKey(authorization, sessionId));
      if (!decision.allowed) {
        const echo = { ...modelArguments, ...runtime };
        const output = bridgeFailure(name, echo, "mnote_tool_rate_limited", TOOL_ERROR_MESSAGES.rateLimited);
        logToolCall(logger, { transport, envelope: runtime, output, startedAt });
        return toResult(output);
      }
    }

    const identity =
      gateIdentity(extra) ??
      (await resolveToken(options.kernel, authorization).then((token) => (token ? whoami(token) : null))) ??
      UNAUTHENTICATED_IDENTITY;
    const envelope = envelopeFromModelArguments(name, modelArguments, {
      ...runtime,
      actorId: identity.actorId,
      capabilityScope: identity.capabilityScope,
    });
    const output = await invokeTool(
      { kernel: options.kernel, logger, toolsSettings: options.toolsSettings },
      { transport, name: canonicalToolName(name) ?? name, envelope, authorization, startedAt },
    );
    return toResult(output);
  });

  return server;
}
