import { TOOL_ERROR_LABELS, type ToolErrorCode, type ToolName } from "@mnote/contract";
import type { PanelToolName, ProposalState, Who } from "@mnote/tools";
import type { RouterOutputs } from "~/trpc/types";

/**
 * Words a person reads, for the names tools and kernels use. Typed over every agent tool and the panel's own
 * (the revert): a new tool without a label does not compile. What a person may do with a proposal or a write
 * is the server's answer (`decidable`, `partiallyApplicable`, `revertable`), never a rule kept here.
 */
export const TOOL_LABELS: Record<ToolName | PanelToolName, string> = {
  "mnote.page.get": "Read page",
  "mnote.page.save": "Edit page body",
  "mnote.page.edit": "Edit page blocks",
  "mnote.page.update_title": "Rename page",
  "mnote.page.update_options": "Change page options",
  "mnote.page.create": "Create page",
  "mnote.artifact.create_summary": "Write page summary",
  "mnote.artifact.create_ai_note": "Add AI note",
  "mnote.comment.create": "Comment",
  "mnote.comment.list": "Read comments",
  "mnote.workspace.search": "Search the workspace",
  "panel.page.revert": "Take back an edit",
  "panel.comment.resolve": "Resolve or reopen a comment",
};

/** The audit log also records calls to names that are no tool (refused as not found): shown as sent. */
export const toolLabel = (name: string) => (name in TOOL_LABELS ? TOOL_LABELS[name as keyof typeof TOOL_LABELS] : name);

type AuditOutcome = RouterOutputs["panel"]["audit"]["list"][number]["outcome"];

/** What came of a call, in words, where no error code says more (docs/glossary.md's words: suggestion, apply…). */
const OUTCOME_LABELS: Record<AuditOutcome, string> = {
  ok: "done",
  replayed: "answered again (the same call, made before)",
  proposal: "suggested: nothing written until someone applies it",
  held_for_approval: TOOL_ERROR_LABELS.mnote_tool_approval_required,
  rejected: TOOL_ERROR_LABELS.mnote_tool_rejected,
  failed: "failed",
};

/**
 * An audit record's outcome and error code in words ("held for a person's approval", "refused: no permission"):
 * the one mapping the panel says them by, from the contract's labels, never the raw codes.
 */
export function outcomeText(record: { outcome: AuditOutcome; errorCode?: ToolErrorCode | null }): string {
  return record.errorCode ? TOOL_ERROR_LABELS[record.errorCode] : OUTCOME_LABELS[record.outcome];
}

/**
 * "Ada’s agent “Hermes”", "Ada’s agent", "Ada": who made a call or a suggestion, by name (ids are one click away).
 * An agent is always named as the person's agent: its token's label ("demo agent") is no person's name (issue 36).
 */
export function whoText(who: Who): string {
  const short = whoShort(who);
  return who.holder === "agent" && who.agentName ? `${short} “${who.agentName}”` : short;
}

/** "Ada’s agent", "Ada": the subject of a sentence in the history ("Ada’s agent inserted 'Alpha line'"). */
export function whoShort(who: Who): string {
  const person = who.actorName || (who.actorId ? "someone" : "nobody (no valid sign-in)");
  return who.holder === "agent" ? `${possessive(person)} agent` : person;
}

/** "Ada’s", "James’": a name's possessive, as the panel writes it (typographic apostrophe). */
export const possessive = (name: string) => (name.endsWith("s") ? `${name}’` : `${name}’s`);

/**
 * A decided proposal's state in words: "applied", "applied in part (2 of 3 changes)", "applied with Ada's edits",
 * "rejected by Ben".
 */
export function proposalStatusText(proposal: {
  status: ProposalState;
  part: { kept: number; total: number } | null;
  decidedBy?: { actorName: string | null } | null;
}): string {
  const name = proposal.decidedBy?.actorName;
  const part = proposal.part ? ` (${proposal.part.kept} of ${proposal.part.total} changes)` : "";
  if (proposal.status === "applied_with_edits")
    return `applied with ${name ? possessive(name) : "a person’s"} edits${part}`;
  if (proposal.status === "applied_in_part") return `applied in part${part}`;
  if (proposal.status === "rejected") return name ? `rejected by ${name}` : "rejected";
  if (proposal.status === "applied") return name ? `applied by ${name}` : "applied";
  return "waiting for review";
}
