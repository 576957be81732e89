import type { IncomingMessage, ServerResponse } from "node:http";
import {
  allToolJsonSchemas,
  openAiStrictFunction,
  type OutputEnvelope,
  TOOL_ERROR_MESSAGES as M,
  type ToolErrorCode,
} from "@mnote/contract";
import { clientAddress, rateLimitKey, whoami } from "../auth";
import type { BridgeContext } from "../context";
import { bridgeFailure, httpStatusOf } from "../bridge-failure";
import { invokeTool } from "../invoke";
import { logToolCall } from "../logging";
import { resolveToken } from "@mnote/tools";
import { type RateDecision, retryAfterSeconds } from "@mnote/process";
import { hermesSafeJson, parseResultForm, RESULT_FORM_HEADER } from "../hermes/model-text";
import { traceIdFromTraceparent } from "../trace";
import { BodyTooLarge, isJsonContentType, readBody, refuseUnread, sendJson, sendRefusal } from "./body";

/**
 * `GET /v1/tools`: each tool under both names, its JSON Schemas, and an OpenAI
 * function-calling entry in strict mode (optional arguments nullable; the router reads a
 * null arg as absent).
 */
export function toolListing() {
  return {
    tools: allToolJsonSchemas().map((tool) => ({
      name: tool.name,
      providerName: tool.providerName,
      description: tool.description,
      kind: tool.kind,
      parameters: tool.parameters,
      outputSchema: tool.outputSchema,
      annotations: tool.annotations,
      openai: openAiStrictFunction(tool),
    })),
  };
}

/**
 * The answer's text: for `X-Mnote-Result-Form: hermes` (sent by the Hermes plugin) the
 * same JSON value as Hermes-safe text (see hermesSafeJson), else the envelope as plain JSON.
 */
function resultText(req: IncomingMessage, output: OutputEnvelope): string {
  return parseResultForm(req.headers[RESULT_FORM_HEADER]) === "hermes"
    ? hermesSafeJson(output)
    : JSON.stringify(output);
}

/** The request's per-token budget (the failed-authentication limit is asked only of failing attempts). */
function takeRate(ctx: BridgeContext, req: IncomingMessage): RateDecision {
  const address = clientAddress(req, ctx.settings.trustedProxies);
  return ctx.limiter?.take(rateLimitKey(req.headers.authorization, address)) ?? { allowed: true };
}

/**
 * A failing attempt (the bearer resolved to no live token) against its client address's budget: refused
 * (429) once the address has used it up, else counted and answered 401. Never asked of a valid token.
 */
function authenticationFailed(ctx: BridgeContext, req: IncomingMessage): Promise<RateDecision> {
  return ctx.authFailures?.failedAttempt(clientAddress(req, ctx.settings.trustedProxies)) ?? ALLOWED;
}

const ALLOWED: Promise<RateDecision> = Promise.resolve({ allowed: true });

/**
 * Is the address over its failed-authentication budget and this request's token no live token? Only then is
 * the token resolved here, before the router: a guesser's refused attempts cost no audit write. A valid call
 * from an address that is not over its budget pays one in-memory lookup.
 */
async function refusedAsGuess(ctx: BridgeContext, req: IncomingMessage): Promise<RateDecision> {
  const limited = ctx.authFailures?.check(clientAddress(req, ctx.settings.trustedProxies));
  if (!limited || limited.allowed) return { allowed: true };
  return (await resolveToken(ctx.kernel, req.headers.authorization)) ? { allowed: true } : limited;
}

function retryAfter(decision: RateDecision): Record<string, string> {
  return decision.allowed ? {} : { "retry-after": retryAfterSeconds(decision.retryAfterMs) };
}

/**
 * `POST /v1/tools/{name}`: the contract's input envelope in, the router's output
 * envelope out, byte for byte. Refusals before the router (rate limit, body size,
 * content type, JSON syntax) answer the same envelope shape.
 */
export async function handleToolCall(ctx: BridgeContext, req: IncomingMessage, res: ServerResponse, name: string) {
  const startedAt = performance.now();
  const headerTraceId = traceIdFromTraceparent(req.headers.traceparent);
  const refuse = (code: ToolErrorCode, message: string, raw?: unknown, headers: Record<string, string> = {}) => {
    const output = bridgeFailure(name, raw, code, message, { traceId: headerTraceId });
    const status = httpStatusOf(output);
    logToolCall(ctx.logger, { transport: "http", envelope: raw, output, startedAt, httpStatus: status });
    sendJson(res, status, resultText(req, output), headers);
  };

  // Decided first, answered after the body is drained so the client reads a clean 429.
  const rate = takeRate(ctx, req);
  let body: Buffer;
  try {
    body = await readBody(req, ctx.settings.bodyLimit);
  } catch (error) {
    if (!(error instanceof BodyTooLarge)) return void req.socket.destroy();
    refuseUnread(req, res);
    return refuse("mnote_tool_payload_too_large", M.payloadTooLarge);
  }
  if (!rate.allowed) return refuse("mnote_tool_rate_limited", M.rateLimited, undefined, retryAfter(rate));
  const guess = await refusedAsGuess(ctx, req);
  if (!guess.allowed) return refuse("mnote_tool_rate_limited", M.authFailuresLimited, undefined, retryAfter(guess));
  if (!isJsonContentType(req.headers["content-type"])) {
    return refuse("mnote_tool_invalid_input", "content-type must be application/json");
  }
  let envelope: unknown;
  try {
    envelope = JSON.parse(body.toString("utf8"));
  } catch {
    return refuse("mnote_tool_invalid_input", "body is not valid JSON");
  }
  // A W3C traceparent fills traceId when the envelope has none.
  if (headerTraceId && envelope && typeof envelope === "object" && !Array.isArray(envelope)) {
    const record = envelope as Record<string, unknown>;
    if (record.traceId === undefined) envelope = { ...record, traceId: headerTraceId };
  }
  const output = await invokeTool(
    { kernel: ctx.kernel, logger: ctx.logger, toolsSettings: ctx.settings.tools },
    { transport: "http", name, envelope, authorization: req.headers.authorization ?? null, startedAt },
  );
  if (output.error?.code === "mnote_tool_unauthenticated") {
    // Counted; the address's budget was not used up when this attempt came in (refusedAsGuess), so it is
    // answered as the failure it is; across instances at most one extra failure passes (AuthFailureLimiter).
    await authenticationFailed(ctx, req);
  }
  sendJson(res, httpStatusOf(output), resultText(req, output));
}

/**
 * `GET /v1/whoami`: who the bearer token is, for runtimes that fill `actorId` and
 * `capabilityScope` themselves (the Hermes plugin). The router still checks both on every call.
 */
export async function handleWhoami(ctx: BridgeContext, req: IncomingMessage, res: ServerResponse) {
  const rate = takeRate(ctx, req);
  if (!rate.allowed) {
    return sendRefusal(res, 429, "mnote_tool_rate_limited", M.rateLimited, retryAfter(rate));
  }
  const token = await resolveToken(ctx.kernel, req.headers.authorization);
  // /v1 is no OAuth resource: a token an OAuth grant bound to /mcp is refused here (decision 0027).
  if (!token || token.resource !== undefined) {
    const failure = await authenticationFailed(ctx, req);
    if (!failure.allowed) {
      return sendRefusal(res, 429, "mnote_tool_rate_limited", M.authFailuresLimited, retryAfter(failure));
    }
    return sendRefusal(res, 401, "mnote_tool_unauthenticated", M.unauthenticated, {
      "www-authenticate": 'Bearer realm="mnote"',
    });
  }
  sendJson(res, 200, whoami(token));
}
