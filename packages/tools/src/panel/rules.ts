import { TOOL_NAMES, type ToolName, type WriteToolName } from "@mnote/contract";
import type { AccessFacts, TokenRecord } from "@mnote/kernel";
import { hasAccess } from "../access";
import { contractToolSpec, type ToolRules } from "../tool-spec";
import { REVERT_TOOL_NAME, revertToolSpec } from "./revert-tool";

/**
 * The server's rules for what a person may do with a proposal or an applied write (decision 0016). The
 * panel shows their answers (`decidable`, `partiallyApplicable`, `revertable`) and repeats none of them.
 */

export const isToolName = (name: string): name is ToolName => (TOOL_NAMES as string[]).includes(name);

/** The checks a proposal's tool puts in front of a decision on it: its capability and page access. */
export function proposalToolSpec(toolName: string): ToolRules | null {
  if (isToolName(toolName)) return contractToolSpec(toolName);
  if (toolName === revertToolSpec.name) return revertToolSpec;
  return null;
}

/**
 * Whoever may approve a proposal may decide on it: approval runs the proposal's tool with the person's
 * token, so its checks decide — the token's scopes hold the tool's capability, and the person has the
 * page access the tool needs (a viewer reads a proposal but decides nothing).
 */
export function mayDecide(facts: AccessFacts, token: TokenRecord, toolName: string): boolean {
  const spec = proposalToolSpec(toolName);
  return spec !== null && hasAccess(facts, spec.access) && token.scopes.includes(spec.capability);
}

/** Who may switch a workspace's approval policy (decision 0006): its owners. One rule for the switch and the panel. */
export const mayChangeApproval = (role: string | null | undefined): boolean => role === "owner";

/**
 * Which write tools a person may apply change by change: those whose proposal is a list of block changes
 * the server can cut. Typed over every write tool, so a new tool does not compile until it is placed here.
 */
const CUT_BY_CHANGE = {
  "mnote.page.save": true,
  "mnote.page.edit": true,
  "mnote.page.update_title": false,
  "mnote.page.update_options": false,
  // A new page is decided whole: approving creates it, rejecting leaves nothing (decision 0046).
  "mnote.page.create": false,
  "mnote.artifact.create_summary": false,
  "mnote.artifact.create_ai_note": false,
  "mnote.comment.create": false,
} satisfies Record<WriteToolName, boolean>;

export function cutsByChange(toolName: string): toolName is "mnote.page.save" | "mnote.page.edit" {
  return (CUT_BY_CHANGE as Record<string, boolean>)[toolName] === true;
}

/**
 * Writes that change a page's title, options or body: what a revert can take back. Typed like
 * `CUT_BY_CHANGE`. Artifacts hang off the page and are not part of its revisions.
 */
const CHANGES_THE_PAGE = {
  "mnote.page.save": true,
  "mnote.page.edit": true,
  "mnote.page.update_title": true,
  "mnote.page.update_options": true,
  // Its revert removes the page again (while nothing else was written to it).
  "mnote.page.create": true,
  "mnote.artifact.create_summary": false,
  "mnote.artifact.create_ai_note": false,
  "mnote.comment.create": false,
} satisfies Record<WriteToolName, boolean>;

export function changesThePage(toolName: string): boolean {
  return (CHANGES_THE_PAGE as Record<string, boolean>)[toolName] === true;
}

/** What the revert rule decides on: the applied write's record, and what the server knows about it. */
export interface RevertFacts {
  toolName: string;
  outcome: string;
  commandId: string | null | undefined;
  /** An agent's own write, or a person's approval of an agent's proposal. */
  aiWrite: boolean;
  /** A revert of this command was applied since. */
  reverted: boolean;
}

/**
 * The revert rule (issue 20): why this write may not be reverted, or null when it may. One rule for the trail's
 * `revertable` and for `panel.page.revert` itself, so a client that ignores what the panel shows is refused the same.
 */
export function revertRefusal(facts: RevertFacts): string | null {
  if (facts.toolName === REVERT_TOOL_NAME) return "a revert is not reverted: it is a person's own write";
  if (facts.outcome !== "ok" || !facts.commandId) return "only an applied write can be reverted";
  if (!changesThePage(facts.toolName)) {
    return "an artifact (a summary, an AI note) is not part of the page's revisions and cannot be reverted";
  }
  if (!facts.aiWrite) return "only an AI write (an agent's, or an approved agent proposal) is reverted here";
  if (facts.reverted) return "this write was already reverted";
  return null;
}
