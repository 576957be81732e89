import { randomUUID } from "node:crypto";
import { IdSchema } from "@mnote/contract";
import { z } from "zod";
import { AppError } from "../../app-error";
import { resolveTool, resolveToolSpec } from "../../panel/comment-resolve-tool";
import { panelEnvelope } from "../../panel/decisions";
import { PageRefSchema, panelProcedure, requirePage } from "../../panel/panel-procedure";
import { createCallerFactory, router } from "../../trpc";

/** The resolve tool is no agent tool: this procedure calls it through its own small router. */
const resolveCaller = createCallerFactory(router({ resolve: resolveTool }));

export const CommentsSetResolvedInput = PageRefSchema.extend({ threadId: IdSchema, resolved: z.boolean() });

/**
 * panel.comments.setResolved — a person resolves a thread or reopens it, through the resolve tool's chain (its
 * checks decide who may: whoever may write the page's artifacts). Each click is its own write: resolve, reopen and
 * resolve again are three commands in the audit trail.
 */
export const commentsSetResolved = panelProcedure.input(CommentsSetResolvedInput).mutation(async ({ ctx, input }) => {
  const { page } = await requirePage(ctx, input, resolveToolSpec.access);
  const envelope = await resolveCaller(ctx).resolve({
    ...panelEnvelope(
      ctx.token,
      { toolName: resolveToolSpec.name, runId: null, traceId: null },
      { workspaceId: page.workspaceId, documentId: page.id },
    ),
    idempotencyKey: `resolve_${randomUUID()}`,
    dryRun: false,
    args: { threadId: input.threadId, resolved: input.resolved },
  });
  if (!envelope.ok && envelope.error) throw new AppError(envelope.error.code, envelope.error.message);
  return { threadId: input.threadId, resolved: input.resolved };
});
