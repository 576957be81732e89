import { randomUUID } from "node:crypto";
import { IdSchema, type OutputEnvelope } from "@mnote/contract";
import { type AuditRecord, revertKeyPrefix } from "@mnote/kernel";
import { callProposalTool } from "../../panel/decisions";
import { PageRefSchema, panelProcedure, requirePage } from "../../panel/panel-procedure";
import { revertToolSpec } from "../../panel/revert-tool";
import { revertRefusal } from "../../panel/rules";
import { AppError } from "../../app-error";

/** An agent's own write, or a person's approval of an agent's proposal (its record names the proposer). */
function isAiWrite(record: AuditRecord): boolean {
  if (record.identity.holder === "agent") return true;
  const proposer = record.detail?.proposer as { holder?: string } | undefined;
  return proposer?.holder === "agent";
}

export const PageRevertInput = PageRefSchema.extend({ commandId: IdSchema });

/**
 * panel.page.revert — a person asks to take back an applied write. The browser names the command; the
 * server builds the call (session, run, call and trace ids, idempotency key) and runs the revert as a dry
 * run on the page as it is now: a revert proposal, shown as a diff and written only on approval. The key
 * is derived from the command and the revision, so a double click proposes one revert, not two.
 */
export const pageRevert = panelProcedure
  .input(PageRevertInput)
  .mutation(async ({ ctx, input }): Promise<{ envelope: OutputEnvelope; proposalId: number | null }> => {
    const { page } = await requirePage(ctx, input, revertToolSpec.access);
    const target = await ctx.kernel.getCommand(input.commandId);
    if (!target || target.identity.documentId !== page.id)
      throw new AppError("mnote_tool_not_found", "no such command on this page");
    // The server's own rule, the one the trail's `revertable` shows (rules.ts): what it forbids is refused here.
    const { write, reverted } = await ctx.kernel.getRevertFacts(input.commandId);
    const refusal = write
      ? revertRefusal({
          toolName: write.identity.toolName,
          outcome: write.outcome,
          commandId: write.commandId,
          aiWrite: isAiWrite(write),
          reverted,
        })
      : "only an applied write can be reverted";
    if (refusal) throw new AppError("mnote_tool_invalid_input", refusal);
    const idempotencyKey = `${revertKeyPrefix(input.commandId)}${page.revision}`;
    const envelope = await callProposalTool(ctx, revertToolSpec.name, {
      toolName: revertToolSpec.name,
      workspaceId: page.workspaceId,
      documentId: page.id,
      actorId: ctx.token.userId,
      sessionId: `panel_${ctx.token.id}`,
      runId: "panel",
      toolCallId: `panel_${randomUUID()}`,
      // On the reverted write's trace: filtering by it shows the write, its revert proposal and the revert.
      traceId: target.identity.traceId ?? randomUUID(),
      capabilityScope: ctx.token.scopes,
      idempotencyKey,
      dryRun: true,
      args: { commandId: input.commandId, baseRevision: page.revision },
    });
    if (!envelope.ok) return { envelope, proposalId: null };
    const proposals = await ctx.kernel.listProposals({
      workspaceId: page.workspaceId,
      documentId: page.id,
      decidedLimit: 0,
    });
    const created = proposals.find(
      (p) => p.identity.toolName === revertToolSpec.name && p.idempotencyKey === idempotencyKey,
    );
    return { envelope, proposalId: created?.auditId ?? null };
  });
