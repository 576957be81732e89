import {
  canonicalToolName,
  echoEnvelopeIds,
  echoToolName,
  failureEnvelope,
  type OutputEnvelope,
  TOOL_ERROR_MESSAGES,
  type ToolName,
} from "@mnote/contract";
import { anonymousIdentity, unverifiedClaims } from "./call-state";
import { createToolsContext, type ToolsContext } from "./context";
import { mnoteRouter } from "./routers/mnote";
import { type ToolCall, toolCallOf } from "./tool-procedure";
import type { SqlKernel } from "@mnote/kernel";

/**
 * Each contract tool's call (`toolCallOf`: the function its procedure's resolver makes, decision 0049), taken from
 * the procedure the agent tools' router routes at the tool's path, named in full so a reader follows a name to its
 * procedure. Only the `mnote` sub-router: the app router holds the panel, whose procedures call `callTool`. A tool
 * added to the contract without an entry here does not compile.
 */
const toolCalls: { [Name in ToolName]: ToolCall } = {
  "mnote.page.get": toolCallOf(mnoteRouter.page.get),
  "mnote.page.save": toolCallOf(mnoteRouter.page.save),
  "mnote.page.edit": toolCallOf(mnoteRouter.page.edit),
  "mnote.page.update_title": toolCallOf(mnoteRouter.page.update_title),
  "mnote.page.update_options": toolCallOf(mnoteRouter.page.update_options),
  "mnote.page.create": toolCallOf(mnoteRouter.page.create),
  "mnote.artifact.create_summary": toolCallOf(mnoteRouter.artifact.create_summary),
  "mnote.artifact.create_ai_note": toolCallOf(mnoteRouter.artifact.create_ai_note),
  "mnote.comment.create": toolCallOf(mnoteRouter.comment.create),
  "mnote.comment.list": toolCallOf(mnoteRouter.comment.list),
  "mnote.workspace.search": toolCallOf(mnoteRouter.workspace.search),
};

/**
 * Call a tool by name — canonical `mnote.page.get` or provider-safe `mnote_page_get` —
 * through the router. The bridge, the CLI and the tests use this one door.
 */
export async function callTool(
  context: ToolsContext | { kernel: SqlKernel; authorization: string | null },
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
      .catch((error: unknown) => ctx.logger.error({ tool: shownName, err: error }, "audit append failed"));
    return failureEnvelope(shownName, echoEnvelopeIds(envelope), {
      code: "mnote_tool_not_found",
      message: TOOL_ERROR_MESSAGES.unknownTool(String(name)),
    });
  }
  // The envelope is checked by the procedure's own checks (they answer the contract's error), not by a type here.
  return toolCalls[toolName](ctx, envelope);
}
