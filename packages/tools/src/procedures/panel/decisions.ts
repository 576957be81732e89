import { randomUUID } from "node:crypto";
import type { OutputEnvelope } from "@mnote/contract";
import type { TokenRecord } from "@mnote/kernel";
import type { z } from "zod";
import { callTool } from "../../call-tool";
import type { PanelDecision, ToolsContext } from "../../context";
import { createCallerFactory, router } from "../../trpc";
import { type PageRefSchema, type PersonContext, type ProposalRefSchema, requirePage } from "./panel-procedure";
import { findProposal, type Proposal } from "./proposals";
import { revertTool, revertToolSpec } from "./revert-tool";
import { isToolName, proposalToolSpec } from "./rules";
import { AppError } from "../../app-error";

// A person's decisions on a proposal run through the proposal's own tool chain: the panel builds the envelope here
// and calls the tool, never the kernel.

/** The revert tool is no agent tool: decisions call it through its own small router. */
const revertCaller = createCallerFactory(router({ revert: revertTool }));

/** Send a person's decision through the tool chain of the proposal's tool, the decision riding along for the audit. */
export function callProposalTool(
  ctx: ToolsContext,
  toolName: string,
  envelope: Record<string, unknown>,
  decision?: PanelDecision,
): Promise<OutputEnvelope> {
  const withDecision: ToolsContext = decision ? { ...ctx, decision } : ctx;
  if (isToolName(toolName)) return callTool(withDecision, toolName, envelope);
  if (toolName === revertToolSpec.name) return revertCaller(withDecision).revert(envelope as never);
  throw new AppError("mnote_tool_invalid_input", `cannot apply a ${toolName} proposal`);
}

/**
 * The envelope a person's decision sends through the tool chain. It keeps the proposal's run and trace
 * (issue 13: filtering the audit trail by the agent's run shows the approved write too); the session and
 * the call are the person's own.
 */
export function panelEnvelope(
  token: TokenRecord,
  proposal: Pick<Proposal, "toolName" | "runId" | "traceId">,
  ref: z.infer<typeof PageRefSchema>,
) {
  return {
    toolName: proposal.toolName,
    workspaceId: ref.workspaceId,
    documentId: ref.documentId,
    actorId: token.userId,
    sessionId: `panel_${token.id}`,
    runId: proposal.runId ?? "panel",
    toolCallId: `panel_${randomUUID()}`,
    traceId: proposal.traceId ?? randomUUID(),
    capabilityScope: token.scopes,
  };
}

/** What a write made by deciding on `proposal` records about it. */
export function decisionOn(proposal: Proposal, part?: PanelDecision["part"]): PanelDecision {
  return {
    proposalId: proposal.id,
    proposer: { actorId: proposal.who.actorId, holder: proposal.who.holder, tokenId: proposal.who.tokenId },
    ...(part ? { part } : {}),
  };
}

/** The proposal, still pending, on a page the person may read. */
export async function pendingProposal(ctx: PersonContext, input: z.infer<typeof ProposalRefSchema>) {
  const { page, facts } = await requirePage(ctx, input);
  const proposal = await findProposal(ctx, page, facts, input.proposalId);
  if (!proposal) throw new AppError("mnote_tool_not_found", "no such proposal on this page");
  if (proposal.status !== "pending") {
    throw new AppError("mnote_tool_conflict", `the proposal is already ${proposal.status.replaceAll("_", " ")}`);
  }
  return { page, facts, proposal };
}

/** Refuses a person who may not decide on the proposal, naming what is missing. */
export async function requireDecider(
  ctx: PersonContext,
  input: z.infer<typeof PageRefSchema>,
  proposal: Pick<Proposal, "toolName">,
) {
  const spec = proposalToolSpec(proposal.toolName);
  if (!spec) throw new AppError("mnote_tool_invalid_input", `cannot decide on a ${proposal.toolName} proposal`);
  await requirePage(ctx, input, spec.access);
  if (!ctx.token.scopes.includes(spec.capability)) {
    throw new AppError("mnote_tool_permission_denied", `this session's scopes do not include ${spec.capability}`);
  }
}
