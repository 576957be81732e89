import {
  canonicalToolName,
  echoEnvelopeIds,
  echoToolName,
  failureEnvelope,
  type OutputEnvelope,
  TOOL_ERROR_MESSAGES,
  type ToolInput,
  type ToolName,
} from "@mnote/contract";
import { anonymousIdentity, unverifiedClaims } from "./call-state";
import { createToolsContext, type ToolsContext } from "./context";
import { mnoteRouter } from "./routers/mnote";
import { createCallerFactory } from "./trpc";
import type { SqlKernel } from "@mnote/kernel";

const createMnoteCaller = createCallerFactory(mnoteRouter);
type MnoteCaller = ReturnType<typeof createMnoteCaller>;

/**
 * Each contract tool's procedure on a caller of the agent tools' router, named in full so a reader (or an editor's
 * "go to definition") follows a name to its procedure. Only the `mnote` sub-router: the app router holds the panel,
 * whose procedures call `callTool`. A tool added to the contract without an entry here does not compile. Each entry
 * reaches into the caller only when its tool is called: every step into a tRPC caller builds a proxy.
 */
const toolProcedures: {
  [Name in ToolName]: (caller: MnoteCaller) => (input: ToolInput<Name>) => Promise<OutputEnvelope>;
} = {
  "mnote.page.get": (caller) => caller.page.get,
  "mnote.page.save": (caller) => caller.page.save,
  "mnote.page.edit": (caller) => caller.page.edit,
  "mnote.page.update_title": (caller) => caller.page.update_title,
  "mnote.page.update_options": (caller) => caller.page.update_options,
  "mnote.page.create": (caller) => caller.page.create,
  "mnote.artifact.create_summary": (caller) => caller.artifact.create_summary,
  "mnote.artifact.create_ai_note": (caller) => caller.artifact.create_ai_note,
  "mnote.comment.create": (caller) => caller.comment.create,
  "mnote.comment.list": (caller) => caller.comment.list,
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
  // The envelope is checked by the procedure's own chain (it answers the contract's error), not by the type here.
  const procedure = toolProcedures[toolName](createMnoteCaller(ctx)) as (input: unknown) => Promise<OutputEnvelope>;
  return procedure(envelope);
}
