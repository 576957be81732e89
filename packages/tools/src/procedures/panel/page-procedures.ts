import { TRPCError } from "@trpc/server";
import { z } from "zod";
import { canReadPage, canWritePage } from "../../access";
import { PageRefSchema, panelProcedure, requirePage } from "./panel-procedure";
import { proposalKeyOf } from "./proposals";

/** panel.session.me — who is signed in, and the workspaces they belong to. */
export const sessionMe = panelProcedure.query(async ({ ctx }) => {
  const user = await ctx.kernel.admin.getUser(ctx.token.userId);
  const workspaces = await ctx.kernel.admin.listWorkspaces(ctx.token.userId);
  return { user, tokenId: ctx.token.id, scopes: ctx.token.scopes, workspaces };
});

/** panel.pages.list — the pages of a workspace this person may read; the rest stay invisible. */
export const pagesList = panelProcedure.input(z.object({ workspaceId: z.string().min(1).max(128) })).query(async ({ ctx, input }) => {
  const pages = await ctx.kernel.admin.listPages(input.workspaceId);
  const visible = [];
  for (const page of pages) {
    const facts = await ctx.kernel.getAccessFacts({ workspaceId: input.workspaceId, documentId: page.id, userId: ctx.token.userId });
    if (canReadPage(facts)) visible.push({ id: page.id, title: page.title, revision: page.revision, isPrivate: page.isPrivate, canWrite: canWritePage(facts) });
  }
  return visible;
});

/** panel.page.view — the page as the person may see it, with what they may do on it. */
export const pageView = panelProcedure.input(PageRefSchema).query(async ({ ctx, input }) => {
  const { page, role, workspace, facts } = await requirePage(ctx, input);
  return {
    page,
    blocks: await ctx.kernel.getBlocks(page.id),
    role,
    canWrite: canWritePage(facts),
    workspace: { id: workspace.id, name: workspace.name, approvalRequired: workspace.approvalRequired },
  };
});

/** panel.page.activity — a cheap cursor the panel polls to show agent activity without a reload. */
export const pageActivity = panelProcedure.input(PageRefSchema).query(async ({ ctx, input }) => {
  const { page } = await requirePage(ctx, input);
  const [latest] = await ctx.kernel.listAudit({ documentId: page.id, limit: 1 });
  return { revision: page.revision, lastAuditId: latest?.id ?? 0 };
});

/** panel.audit.list — every call on this page, filterable by run, trace or session (one Hermes conversation). */
export const auditList = panelProcedure
  .input(PageRefSchema.extend({ runId: z.string().max(256).optional(), traceId: z.string().max(256).optional(), sessionId: z.string().max(256).optional(), limit: z.number().int().min(1).max(500).optional() }))
  .query(async ({ ctx, input }) => {
    const { page } = await requirePage(ctx, input);
    const records = await ctx.kernel.listAudit({ documentId: page.id, runId: input.runId, traceId: input.traceId, sessionId: input.sessionId, limit: input.limit ?? 200 });
    // A record whose caller named this page id in another workspace belongs to nobody's page here.
    const onPage = records.filter((r) => r.identity.workspaceId === page.workspaceId);
    // An AI write is an agent's own write, or a person's approval of an agent's proposal (same tool and
    // key, or a partial apply cut from it): the panel offers Revert on those.
    const agentEdits = new Set(
      onPage.flatMap((r) => (r.identity.holder === "agent" && r.idempotencyKey ? [`${r.identity.toolName} ${r.idempotencyKey}`] : [])),
    );
    return onPage.map((record) => ({
      ...record,
      aiWrite:
        record.effect === "write" &&
        (record.identity.holder === "agent" ||
          (record.idempotencyKey !== null && record.idempotencyKey !== undefined &&
            agentEdits.has(`${record.identity.toolName} ${proposalKeyOf(record.idempotencyKey)}`))),
    }));
  });

/** panel.command.get — the kernel command behind an audit.commandId. */
export const commandGet = panelProcedure.input(PageRefSchema.extend({ commandId: z.string().min(1).max(128) })).query(async ({ ctx, input }) => {
  const { page } = await requirePage(ctx, input);
  const command = await ctx.kernel.getCommand(input.commandId);
  if (!command || command.identity.documentId !== page.id) throw new TRPCError({ code: "NOT_FOUND", message: "no such command on this page" });
  return command;
});

/** panel.artifacts.list — the page's summary and AI notes with their reference edges. */
export const artifactsList = panelProcedure.input(PageRefSchema).query(async ({ ctx, input }) => {
  const { page } = await requirePage(ctx, input);
  return ctx.kernel.listArtifacts(page.id);
});

/** panel.workspace.setApproval — owners decide whether agent page writes wait for a person. */
export const workspaceSetApproval = panelProcedure
  .input(z.object({ workspaceId: z.string().min(1).max(128), approvalRequired: z.boolean() }))
  .mutation(async ({ ctx, input }) => {
    const workspaces = await ctx.kernel.admin.listWorkspaces(ctx.token.userId);
    if (workspaces.find((w) => w.id === input.workspaceId)?.role !== "owner") {
      throw new TRPCError({ code: "FORBIDDEN", message: "only a workspace owner changes the approval policy" });
    }
    await ctx.kernel.admin.setApprovalRequired(input.workspaceId, input.approvalRequired);
    return input;
  });
