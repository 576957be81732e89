import { randomUUID } from "node:crypto";
import { canonicalToolName, echoValue, type OutputEnvelope, TOOL_ERROR_MESSAGES } from "@mnote/contract";
import type { SqlKernel } from "@mnote/kernel";
import { resolveToken, type ToolsSettings } from "@mnote/tools";
import { type RateLimiter } from "@mnote/process";
import { type CallToolRequest, type CallToolResult, Server, type ServerContext } from "@modelcontextprotocol/server";
import { rateLimitKey, whoami, type WhoAmI } from "../auth";
import { bridgeFailure } from "../bridge-failure";
import { parseResultForm, RESULT_FORM_HEADER, type ResultForm } from "../hermes/model-text";
import { idempotencyKeyForCall } from "../idempotency";
import { headerValue } from "../headers";
import { invokeTool } from "../invoke";
import { type BridgeLogger, createLogger, logToolCall } from "../logging";
import { envelopeFromModelArguments, UNAUTHENTICATED_IDENTITY } from "../from-model-arguments";
import { newTraceId, traceIdFromTraceparent } from "../trace";
import type { AnswerWriter } from "./answer-json";
import { EnvelopeJson, errorFirst } from "../envelope-json";
import { takeCallerIds } from "./caller-ids";
import type { ModernAnswer } from "./modern-answer";
import { mcpToolList } from "./tools";

export const SERVER_INFO = { name: "mnote", version: "0.1.0" };

export interface McpServerOptions {
  kernel: SqlKernel;
  logger?: BridgeLogger;
  rateLimiter?: RateLimiter | null;
  /**
   * stdio: the credential for every call (from MNOTE_TOKEN). Over HTTP leave it out:
   * each call then uses its own request's `Authorization` header.
   */
  authorization?: string | null;
  /**
   * stdio: who `authorization`'s token is, read once when the connection starts (the HTTP door reads it per request,
   * `GateFindings.whoami`). It only fills the envelope's actor and scope: the router still checks the live token on
   * every call, so a token revoked or expired since is refused there. Left out: read per call.
   */
  identity?: WhoAmI;
  /** stdio: the per-process session id; HTTP: the request's MCP session id (the transport is stateless). */
  sessionId?: string;
  /**
   * stdio: the result form for every call (MNOTE_RESULT_FORM). Over HTTP leave it out:
   * each request's X-Mnote-Result-Form header chooses.
   */
  resultForm?: ResultForm;
  /** The process's validated router settings. */
  toolsSettings?: ToolsSettings;
  /** Where the transport writes this server's answers: each tool result's envelope JSON is handed to it once. */
  answers?: AnswerWriter;
}

/** The request's headers, as the HTTP door saw them (stdio has none). */
export type RequestHeaders = Record<string, string | string[] | undefined>;

/**
 * What the HTTP gate found for a request (`authInfo.extra`): who its token is, its MCP session, and its headers
 * (the SDK 2.x context carries a Web `Request` only when the transport built one; the door builds none on the
 * 2025-era path).
 */
export interface GateFindings {
  whoami: WhoAmI;
  /** The 2025-era session id (decision 0014); null on a 2026-07-28 request, which has no session. */
  sessionId: string | null;
  headers: RequestHeaders;
  /** The resource /mcp is (decision 0027), so the router accepts the tokens bound to it; null without OAuth. */
  resource: string | null;
  /** A 2026-07-28 request: where its server's answer is written (see ModernAnswer). */
  modernAnswer?: ModernAnswer;
}

function gateFindings(ctx: ServerContext): Partial<GateFindings> {
  return (ctx.http?.authInfo?.extra as Partial<GateFindings> | undefined) ?? {};
}

/**
 * Only an outage is an MCP tool error. Hermes's MCP client counts every `isError` result
 * as a server failure and after 3 in a row answers every call to the server with "MCP
 * server is unreachable" for 60 s (tools/mcp_tool.py, `_bump_server_error`). A refusal
 * (denied, invalid input, conflict, approval required, not found, idempotency conflict,
 * rate limited) is an answer the model must read and act on, so it is a normal result.
 * Rate limited included: the limiter refills within seconds and its envelope says to
 * retry later; locking every mnote tool for a minute would be the wrong answer to it.
 */
export function isOutage(output: OutputEnvelope): boolean {
  return !output.ok && output.error?.code === "mnote_tool_unavailable";
}

/**
 * The MCP result for an envelope. Standard form: `structuredContent` is the envelope and
 * the text content the same JSON value (Hermes-safe text), for clients that read either.
 * Hermes form (Hermes's MCP client returns text and structuredContent to the model both
 * when both are present, 2.2x the envelope): a success or an outage as text only, which
 * Hermes hands over as `{"result": text}` (or `{"error": text}` for isError); a refusal
 * as structuredContent only, which Hermes hands over as `{"result": envelope}` as a
 * JSON object, so its `"error"` key keeps it a failure for Hermes's classifier without
 * touching the breaker. Either way the model reads the envelope once.
 */
export function toResult(output: OutputEnvelope, form: ResultForm, json = EnvelopeJson.of(output)): CallToolResult {
  const isError = isOutage(output);
  // A failure's error right after ok (the same value): Hermes reads a refusal's structuredContent as text inside
  // {"result": …}, and its fallback rule looks at the first 500 characters only (envelope-json.ts `errorFirst`).
  const envelope = output.ok ? output : errorFirst(output);
  if (form === "hermes" && !output.ok && !isError) return { content: [], structuredContent: envelope, isError };
  const text = { type: "text" as const, text: json.safe };
  if (form === "hermes") return { content: [text], isError };
  return { structuredContent: envelope, content: [text], isError };
}

/**
 * One MCP server over the router: one per bridge process for every HTTP request (it keeps nothing
 * between requests; each request's own token, session and result form come with the request), one
 * per stdio connection. `tools/list`
 * is the contract's listing; `tools/call` turns the model's flat arguments into the
 * full envelope and calls the router with it.
 */
export function createMcpServer(options: McpServerOptions): Server {
  const logger = options.logger ?? createLogger();
  const transport = options.authorization !== undefined ? "mcp-stdio" : "mcp-http";
  // stdio writes its answer in the turn its request came in: the call's log line can follow it (logToolCall).
  const logAfterAnswer = transport === "mcp-stdio";
  const fallbackSession = options.sessionId ?? `mcp_${randomUUID()}`;
  const tools = { standard: mcpToolList("standard"), hermes: mcpToolList("hermes") };
  const formOf = (ctx: ServerContext) =>
    options.resultForm ?? parseResultForm(gateFindings(ctx).headers?.[RESULT_FORM_HEADER]);
  const server = new Server(SERVER_INFO, {
    capabilities: { tools: {} },
    instructions:
      "mnote page tools. Read a page with mnote_page_get before editing; call write tools with dryRun: true first when the user should review the change.",
  });

  server.setRequestHandler("tools/list", (_request, ctx) => ({ tools: tools[formOf(ctx)] }));

  server.setRequestHandler("tools/call", async (request, ctx): Promise<CallToolResult> => {
    const { output, form } = await callTool(request, ctx);
    // The envelope's JSON is written once: the result's text is made of it, and the transport's AnswerWriter writes
    // the answer from the same pieces instead of serializing the envelope (and its text) again.
    const json = EnvelopeJson.of(output);
    const result = toResult(output, form, json);
    // A 2026-07-28 request brings its own writer (its server serves one exchange at a time, see ModernServers).
    (gateFindings(ctx).modernAnswer?.answers ?? options.answers)?.keep(ctx.mcpReq.id, json, result);
    return result;
  });

  const callTool = async (
    request: CallToolRequest,
    ctx: ServerContext,
  ): Promise<{ output: OutputEnvelope; form: ResultForm }> => {
    const startedAt = performance.now();
    const gate = gateFindings(ctx);
    const headers = gate.headers ?? {};
    const authorization =
      options.authorization !== undefined ? options.authorization : (headerValue(headers.authorization) ?? null);
    const meta = (request.params._meta ?? {}) as Record<string, unknown>;
    const sessionId = gate.sessionId ?? fallbackSession;
    const traceId =
      traceIdFromTraceparent(meta.traceparent) ??
      echoValue(meta.traceId, "traceId") ??
      traceIdFromTraceparent(headers.traceparent) ??
      newTraceId();
    const name = request.params.name;
    const form = formOf(ctx);
    const caller = takeCallerIds(request.params.arguments ?? {});
    const modelArguments = caller.modelArguments;
    const ids = caller.ok ? caller.ids : null;
    const runtime = {
      // The caller's own ids when it sends them (the Hermes plugin does), else the MCP session's.
      sessionId: ids?.sessionId ?? sessionId,
      runId: ids?.runId ?? echoValue(meta.runId, "runId") ?? ids?.sessionId ?? sessionId,
      toolCallId: ids?.toolCallId ?? echoValue(String(ctx.mcpReq.id), "toolCallId") ?? randomUUID(),
      traceId,
    };
    const refuse = (code: "mnote_tool_rate_limited" | "mnote_tool_invalid_input", message: string) => {
      const output = bridgeFailure(name, { ...modelArguments, ...runtime }, code, message);
      logToolCall(logger, { transport, envelope: runtime, output, startedAt, afterAnswer: logAfterAnswer });
      return { output, form };
    };

    if (options.rateLimiter) {
      const decision = options.rateLimiter.take(rateLimitKey(authorization, sessionId));
      if (!decision.allowed) return refuse("mnote_tool_rate_limited", TOOL_ERROR_MESSAGES.rateLimited);
    }
    if (!caller.ok) return refuse("mnote_tool_invalid_input", caller.message);

    const identity =
      gate.whoami ??
      options.identity ??
      (await resolveToken(options.kernel, authorization).then((token) => (token ? whoami(token) : null))) ??
      UNAUTHENTICATED_IDENTITY;
    const envelope = envelopeFromModelArguments(name, modelArguments, {
      ...runtime,
      idempotencyKey: idempotencyKeyForCall({
        metaKey: echoValue(meta.idempotencyKey, "idempotencyKey"),
        // Only a tool-call id the caller sent names its call; the JSON-RPC id is new on every resend.
        caller: ids?.toolCallId
          ? { sessionId: runtime.sessionId, runId: runtime.runId, toolCallId: ids.toolCallId }
          : null,
      }),
      actorId: identity.actorId,
      capabilityScope: identity.capabilityScope,
    });
    const output = await invokeTool(
      { kernel: options.kernel, logger, toolsSettings: options.toolsSettings, logAfterAnswer },
      {
        transport,
        name: canonicalToolName(name) ?? name,
        envelope,
        authorization,
        startedAt,
        resource: gate.resource ?? null,
      },
    );
    return { output, form };
  };

  return server;
}
