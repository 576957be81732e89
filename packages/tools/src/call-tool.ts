import {
  canonicalToolName,
  echoEnvelopeIds,
  echoToolName,
  failureEnvelope,
  type OutputEnvelope,
  TOOL_ERROR_MESSAGES,
} from "@mnote/contract";
import { anonymousIdentity, unverifiedClaims } from "./call-state";
import { createToolsContext, type ToolsContext } from "./context";
import { mnoteRouter } from "./routers/mnote";
import { createCallerFactory } from "./trpc";
import type { KernelAdapter } from "@mnote/kernel";

const createMnoteCaller = createCallerFactory(mnoteRouter);

/**
 * Call a tool by name — canonical `mnote.page.get` or provider-safe `mnote_page_get` —
 * through the router. The bridge, the CLI and the tests use this one door.
 */
export async function callTool(
  context: ToolsContext | { kernel: KernelAdapter; authorization: string | null },
  name: string,
  envelope: unknown,
): Promise<OutputEnvelope> {
  const toolName = canonicalToolName(name);
  const ctx = "settings" in context ? context : createToolsContext(context);
  if (!toolName) {
    const shownName = echoToolName(name);
    // Every call leaves an audit record, a call to a tool that does not exist included. No check ran, so,
    // as for a call without a live token, the ids it sent are claims: kept for an operator, in nobody's trail.
    await ctx.kernel
      .appendAudit({
        identity: anonymousIdentity(shownName),
        effect: "none",
        outcome: "failed",
        errorCode: "mnote_tool_not_found",
        detail: unverifiedClaims(envelope),
      })
      .catch((error: unknown) => console.error("[mnote] audit append failed", error));
    return failureEnvelope(shownName, echoEnvelopeIds(envelope), {
      code: "mnote_tool_not_found",
      message: TOOL_ERROR_MESSAGES.unknownTool(String(name)),
    });
  }
  // The caller is a proxy over the agent tools' router, so the tool's dotted name after `mnote.` is its path.
  // Only the `mnote` sub-router: the app router holds the panel, whose procedures call this function.
  let procedure: unknown = createMnoteCaller(ctx);
  for (const segment of toolName.split(".").slice(1)) procedure = (procedure as Record<string, unknown>)[segment];
  return (procedure as (input: unknown) => Promise<OutputEnvelope>)(envelope);
}
