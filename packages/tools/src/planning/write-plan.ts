import type { Change, DryRunPreview, ToolErrorCode } from "@mnote/contract";
import { indentChange, markChanges, type Placement } from "@mnote/diff";
import type { KernelCommand, PageRecord, SqlKernel } from "@mnote/kernel";
import type { ParsedEnvelope } from "../tool-spec";

/** What a write tool works out before anything is written: the command, and the dry run a person would see. */
export interface WritePlan {
  command: KernelCommand;
  preview: DryRunPreview;
  /** Set when a real call must not run even though the dry run may (an option not wired yet). */
  refuse?: { code: ToolErrorCode; message: string };
  /**
   * By change: where an inserted or moved block goes, by the block before it (decision 0030). Kept with a proposal,
   * so its changes can be applied to the page after it moved on.
   */
  placements?: (Placement | null)[];
}

/** What a planner works from: a checked write's envelope (its args as the tool's schema parsed them) and page. */
export interface Planning<Args> {
  kernel: SqlKernel;
  input: ParsedEnvelope<Args>;
  /** The write's idempotency key: derived block ids come from it, so a dry run and its write agree. */
  key: string;
  page: PageRecord;
  /**
   * The plan will be shown to a person (a dry run, a write held for approval), so it must be exact.
   * Otherwise a planner may skip a check the kernel makes anyway while writing (an append's derived
   * block ids): if the kernel refuses, `runWrite` plans again with this set.
   */
  exact: boolean;
}

export type Planner<Args> = (planning: Planning<Args>) => Promise<WritePlan>;

/** What a planner works out for the dry run; the rest of it comes from the command and the page. */
export type PlanPreview = Pick<DryRunPreview, "plan" | "diff" | "changes"> & {
  warnings?: DryRunPreview["warnings"];
  placements?: (Placement | null)[];
};

/**
 * The plan of `command` on `page`. The dry run takes its command name from the command and its base
 * revision from the page, so a planner names its command once (the contract's `commandName` is checked
 * against what a dry run answers in dry-run.test.ts).
 */
export function writePlan(
  page: PageRecord,
  command: KernelCommand,
  preview: PlanPreview,
  refuse?: WritePlan["refuse"],
): WritePlan {
  const { placements, ...shown } = preview;
  return {
    command,
    preview: {
      dryRun: true,
      commandName: command.name,
      baseRevision: page.revision,
      ...shown,
      plan: [...shown.plan, ...formattingSteps(shown.changes)],
      warnings: shown.warnings ?? [],
    },
    ...(refuse ? { refuse } : {}),
    ...(placements ? { placements } : {}),
  };
}

/** The plan's line for a command that moves the page to its next revision. */
export const nextRevisionStep = (page: PageRecord) => `page revision ${page.revision} → ${page.revision + 1}`;

/** At most this many formatting lines in a plan; the changes carry the rest. */
const FORMATTING_STEPS = 20;

/**
 * The formatting an update changes, in words (decision 0026): a mark-only change is a change a
 * model and a person can read in the plan ("block p: bold added to 'Friday'", "block l: indent 0 → 1").
 */
function formattingSteps(changes: readonly Change[]): string[] {
  const steps: string[] = [];
  for (const change of changes) {
    if (change.kind !== "update") continue;
    for (const words of markChanges(change.before, change.after)) steps.push(`block ${change.after.id}: ${words}`);
    const indent = indentChange(change.before, change.after);
    if (indent) steps.push(`block ${change.after.id}: indent ${indent.from} → ${indent.to}`);
    if (steps.length >= FORMATTING_STEPS) break;
  }
  if (steps.length > FORMATTING_STEPS) steps.length = FORMATTING_STEPS;
  return steps;
}
