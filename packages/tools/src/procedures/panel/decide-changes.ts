import type { OutputEnvelope } from "@mnote/contract";
import { type ChangeSet, ChangeRefused, type ChosenChange, planChosen } from "@mnote/diff";
import type { PageRecord, StoredChangeDecision } from "@mnote/kernel";
import { toOperations } from "../../anchored-operations";
import type { z } from "zod";
import { AppError } from "../../app-error";
import type { BlockEdit } from "../../context";
import { changeTarget, describeChange, describeChanges, proposalOnPage } from "../../proposal-merge";
import type { ChangeDecision } from "./changes";
import { callProposalTool, decisionOn, panelEnvelope } from "../../panel/decisions";
import type { PageRefSchema, PersonContext } from "../../panel/panel-procedure";
import { decisionKey, type Proposal } from "../../panel/proposals";
import { REVERT_TOOL_NAME } from "../../panel/revert-tool";

/** What the reason of a `keep_mine` says when the person gave none: the agent reads it. */
export const KEPT_MINE = "kept the page's newer version";

/**
 * Decides some changes of a pending proposal in one step (decision 0030): the changes applied (as proposed, over a
 * conflict, or in the person's version) are merged again with the page as it is now and written as ONE command on
 * the proposal's run and trace; the left-out ones are recorded with it; the proposal's change states are settled
 * in the same kernel transaction. Without anything to write, the left-out changes are recorded alone.
 */
export async function decideChanges(
  ctx: PersonContext,
  ref: z.infer<typeof PageRefSchema>,
  page: PageRecord,
  proposal: Proposal,
  decisions: readonly ChangeDecision[],
): Promise<{ envelope: OutputEnvelope | null; auditId: number | null }> {
  const total = proposal.preview.changes.length;
  const onPage = await proposalOnPage(ctx.kernel, page, proposal);
  const chosen: ChosenChange[] = [];
  const decided: StoredChangeDecision[] = [];
  const edits: BlockEdit[] = [];
  const sentences: string[] = [];
  for (const [i, decision] of decisions.entries()) {
    const { index } = decision;
    if (index >= total) {
      throw new AppError("mnote_tool_invalid_input", `decisions.${i}.index: the proposal has ${total} changes`);
    }
    if (proposal.changes[index]?.decision) {
      throw new AppError("mnote_tool_conflict", `change ${index} was already decided`, "proposal_decided");
    }
    const change = proposal.preview.changes[index]!;
    const merged = onPage.merged[index]!;
    const target = changeTarget(change);
    const placement = onPage.placements[index];
    switch (decision.choice) {
      case "reject":
      case "keep_mine": {
        const keptMine = decision.choice === "keep_mine" && merged.state === "conflict";
        const reason = decision.reason || (keptMine ? KEPT_MINE : null);
        decided.push({ index, state: "rejected", reason, target, ...(keptMine ? { keptMine } : {}) });
        break;
      }
      case "accept":
        if (merged.state === "conflict") {
          throw new AppError(
            "mnote_tool_conflict",
            `change ${index} (${target}) conflicts with a newer version: keep yours, take the agent's, or edit it`,
          );
        }
        chosen.push({ index, change, placement });
        decided.push({ index, state: "applied", target });
        sentences.push(describeChange(change, placement, (id) => onPage.page.blocks.get(id)));
        break;
      case "take_agents":
        chosen.push({ index, change, placement, force: true });
        decided.push({ index, state: "applied", target });
        sentences.push(describeChange(change, placement, (id) => onPage.page.blocks.get(id)));
        break;
      case "edit": {
        const block = decision.block!;
        const proposed = change.kind === "insert" ? change.block : change.kind === "update" ? change.after : null;
        if (!proposed) {
          throw new AppError(
            "mnote_tool_invalid_input",
            `decisions.${i}: a ${change.kind} change has no block to edit`,
          );
        }
        chosen.push({ index, change, placement, block });
        decided.push({ index, state: "applied_with_edits", target, final: block });
        edits.push({ blockId: block.id, proposed, applied: block });
        sentences.push(
          describeChange(
            { ...change, ...(change.kind === "insert" ? { block } : { after: block }) } as typeof change,
            placement,
            (id) => onPage.page.blocks.get(id),
          ),
        );
        break;
      }
    }
  }
  let set: ChangeSet;
  try {
    set = planChosen(chosen, onPage.page, onPage.inserted);
  } catch (error) {
    if (error instanceof ChangeRefused) throw new AppError("mnote_tool_conflict", error.message);
    throw error;
  }
  const settlement = { decided, total };
  const writes = set.steps.length > 0 || set.title !== undefined || set.options !== undefined;
  if (!writes) {
    const auditId = await ctx.kernel.rejectProposal({
      proposalId: proposal.id,
      reason: decided.find((d) => d.state === "rejected")?.reason ?? null,
      changes: settlement,
      record: {
        identity: { ...panelEnvelope(ctx.token, proposal, ref), tokenId: ctx.token.id, holder: "person" },
        effect: "none",
        outcome: "rejected",
        idempotencyKey: proposal.idempotencyKey,
        payloadFingerprint: proposal.payloadFingerprint,
        baseRevision: page.revision,
        detail: { ...decisionOn(proposal), changes: decided },
      },
    });
    if (auditId === null) {
      throw new AppError("mnote_tool_conflict", "the proposal was decided meanwhile", "proposal_decided");
    }
    return { envelope: null, auditId };
  }
  const { toolName, args } = writeOf(proposal, set, page.revision);
  const envelope = await callProposalTool(
    ctx,
    toolName,
    {
      ...panelEnvelope(ctx.token, proposal, ref),
      toolName,
      idempotencyKey: decisionKey(proposal.idempotencyKey, "decide", decisions),
      dryRun: false,
      args,
    },
    {
      ...decisionOn(proposal, edits.length ? { edits } : {}),
      changes: settlement,
      description: describeChanges(sentences),
    },
  );
  return { envelope, auditId: null };
}

/** The tool call that writes a change set: the one tool of the proposal's kind that takes anchored changes. */
function writeOf(proposal: Proposal, set: ChangeSet, revision: number): { toolName: string; args: object } {
  const operations = toOperations(set.steps);
  switch (proposal.toolName) {
    case "mnote.page.save":
    case "mnote.page.edit":
      return { toolName: "mnote.page.edit", args: { operations, baseRevision: revision } };
    case "mnote.page.update_title":
      return { toolName: proposal.toolName, args: { title: set.title!, baseRevision: revision } };
    case "mnote.page.update_options":
      return { toolName: proposal.toolName, args: { options: set.options!, baseRevision: revision } };
    case REVERT_TOOL_NAME:
      return {
        toolName: REVERT_TOOL_NAME,
        args: {
          commandId: proposal.args.commandId,
          baseRevision: revision,
          apply: {
            operations,
            ...(set.title !== undefined ? { title: set.title } : {}),
            ...(set.options ? { options: set.options } : {}),
          },
        },
      };
    default:
      throw new AppError("mnote_tool_invalid_input", `a ${proposal.toolName} proposal is decided whole`);
  }
}
