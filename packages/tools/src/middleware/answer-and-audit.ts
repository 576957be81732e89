import { type DryRunResult, echoField } from "@mnote/contract";
import type { SqlKernel } from "@mnote/kernel";
import { canReadPage } from "../access";
import { type CallState, callFailure, callIdentity, type RouterAudit, unverifiedClaims } from "../call-state";
import { AppError, isAppError } from "../app-error";
import { proposalSummary } from "../proposal-summary";
import { middleware } from "../trpc";
import type { ToolSpec } from "../tool-spec";
import type { ToolsContext } from "../context";

/**
 * The outermost link, and the tools' one mapping of `AppError`. Whatever happens below, the caller gets an output envelope,
 * and every call leaves exactly one audit record: the kernel writes it inside a
 * write's transaction, this middleware writes it for everything else.
 */
export const envelopeAndAudit = middleware(async ({ ctx, meta, getRawInput, next }) => {
  const tool = meta?.tool as ToolSpec;
  const call: CallState = { tool, startedAt: performance.now(), raw: await getRawInput().catch(() => undefined) };
  const result = await next({ ctx: { call } });
  if (result.ok) {
    const envelope = result.data as {
      ok: boolean;
      audit: { effect: string; commandId: string | null };
      error: { code: string } | null;
    };
    await recordAudit(ctx, call, envelope.audit.effect, envelope.audit.commandId, envelope.error?.code ?? null);
    return result;
  }
  // A rule's AppError becomes its failure envelope; anything unexpected (a database gone away) is logged here and
  // answered without its internals.
  const expected = isAppError(result.error);
  if (!expected) ctx.logger.error({ tool: tool.name, err: result.error.cause ?? result.error }, "tool failed unexpectedly");
  const failure = expected ? AppError.from(result.error) : AppError.from(null);
  const envelope = callFailure(call, failure.code, failure.message);
  await recordAudit(ctx, call, "none", null, failure.code);
  return { ...result, ok: true as const, data: envelope };
});

const proposalPreview = (audit: RouterAudit | undefined) =>
  audit?.outcome === "proposal" || audit?.outcome === "held_for_approval"
    ? ((audit.detail?.preview as DryRunResult | undefined) ?? null)
    : null;

async function recordAudit(
  { kernel, logger }: ToolsContext,
  call: CallState,
  effect: string,
  commandId: string | null,
  errorCode: string | null,
) {
  // An applied command's record was written with the command, in its transaction.
  if (call.audit === "kernel") return;
  const audit = call.audit;
  const preview = proposalPreview(audit);
  try {
    const verified = await targetVerified(kernel, call, errorCode);
    await kernel.appendAudit({
      identity: callIdentity(call, verified),
      effect: effect as "read",
      outcome: audit?.outcome ?? (errorCode ? "failed" : "ok"),
      errorCode: errorCode as null,
      commandId,
      idempotencyKey: call.input?.idempotencyKey ?? null,
      payloadFingerprint: call.fingerprint ?? null,
      // A proposal made without a base revision still records the one its diff was computed on.
      baseRevision:
        (call.input?.args.baseRevision as number | undefined) ??
        (audit?.detail?.preview as { baseRevision?: number } | undefined)?.baseRevision ??
        null,
      // A call without a valid token: what it claimed, marked as unverified, for an operator's eyes only.
      detail: audit?.detail ?? (call.token && verified ? null : unverifiedClaims(call.raw)),
      // A proposal's index row carries a summary, so the panel's list never reads the full preview.
      summary: preview ? proposalSummary(preview) : null,
      durationMs: performance.now() - call.startedAt,
    });
  } catch (error) {
    // The answer already stands; losing an audit line for a read is logged, not turned into a failure.
    logger.error({ tool: call.tool.name, err: error }, "audit append failed");
  }
}

/**
 * May the record name the workspace, page, session and run the call named? Always for a call that passed the
 * checks; for a refused one only when its caller may read that page (issue 20: a stranger's refused call must not
 * land in the page's trail, a conversation's calls or the change feed). The checks' facts decide; a call refused
 * before they were read (a bad envelope) costs one read of the facts for the ids it sent.
 */
async function targetVerified(kernel: SqlKernel, call: CallState, errorCode: string | null): Promise<boolean> {
  if (!call.token || !errorCode) return true;
  if (call.facts) return canReadPage(call.facts);
  const workspaceId = echoField(call.raw, "workspaceId");
  const documentId = echoField(call.raw, "documentId");
  if (!workspaceId || !documentId) return false;
  return canReadPage(await kernel.getAccessFacts({ workspaceId, documentId, userId: call.token.userId }));
}
