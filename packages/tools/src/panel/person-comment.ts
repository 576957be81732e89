import { LIMITS } from "@mnote/contract";
import { AppError } from "../app-error";
import { callTool } from "../call-tool";
import { panelEnvelope } from "./decisions";
import type { PersonContext } from "./panel-procedure";

/**
 * A person's comment from the panel — a new thread on a block or a reply — is `mnote.comment.create` through the
 * tool chain with the person's token, like any write: checked (who may comment = who may write the page's
 * artifacts), idempotent by the browser's key, audited, traceable to its command, and pushed to open panels by its
 * audit record. The tool's refusal comes back as the panel's error, in the tool's words.
 */
export async function commentAsPerson(
  ctx: PersonContext,
  page: { workspaceId: string; id: string },
  args: { blockId: string; quote?: string; markdown: string } | { threadId: string; markdown: string },
  /** The browser's key for this comment, with what it is ("thread", "reply"): one comment per key. */
  key: { kind: "thread" | "reply"; value: string },
) {
  const envelope = await callTool(ctx, "mnote.comment.create", {
    // The person's own call: their session, no agent's run or trace to keep.
    ...panelEnvelope(
      ctx.token,
      { toolName: "mnote.comment.create", runId: null, traceId: null },
      { workspaceId: page.workspaceId, documentId: page.id },
    ),
    idempotencyKey: `${key.kind}_${key.value}`.slice(0, LIMITS.idempotencyKeyLength),
    dryRun: false,
    args,
  });
  if (!envelope.ok && envelope.error) throw new AppError(envelope.error.code, envelope.error.message);
  const result = envelope.result as { threadId: string };
  return { threadId: result.threadId, commandId: envelope.audit.commandId };
}
