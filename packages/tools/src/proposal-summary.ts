import type { DiffSummaryOp, DryRunResult, ToolWarning } from "@mnote/contract";

/** What the panel's list shows of a proposal's preview: a few hundred bytes, whatever the edit's size. */
export type ProposalSummary = {
  commandName: string;
  plan: string[];
  diff: DiffSummaryOp[];
  /** How many changes the full preview lists (the panel fetches them with `panel.proposals.get`). */
  changeCount: number;
  warnings: ToolWarning[];
};

const SUMMARY_LINES = 20;
const SUMMARY_LINE_CHARS = 300;
const clip = (text: string) => (text.length > SUMMARY_LINE_CHARS ? `${text.slice(0, SUMMARY_LINE_CHARS - 1)}…` : text);

/**
 * The summary stored with a proposal's index row (the kernel keeps it next to the status). Its own file:
 * the tool chain's audit step writes it, and must not import the panel's procedures.
 */
export function proposalSummary(preview: DryRunResult): ProposalSummary {
  return {
    commandName: preview.commandName,
    plan: preview.plan.slice(0, SUMMARY_LINES).map(clip),
    diff: preview.diff.slice(0, SUMMARY_LINES),
    changeCount: preview.changes.length,
    warnings: preview.warnings
      .slice(0, SUMMARY_LINES)
      .map((warning) => ({ ...warning, message: clip(warning.message) })),
  };
}
