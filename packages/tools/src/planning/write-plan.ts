import type { DryRunPreview, ToolErrorCode } from "@mnote/contract";
import type { KernelCommand, PageRecord } from "@mnote/kernel";
import type { CheckedCall } from "../tool-procedure";

/** What a write tool works out before anything is written: the command, and the dry run a person would see. */
export interface WritePlan {
  command: KernelCommand;
  preview: DryRunPreview;
  /** Set when a real call must not run even though the dry run may (an option not wired yet). */
  refuse?: { code: ToolErrorCode; message: string };
}

export type Planner = (checked: CheckedCall) => Promise<WritePlan>;

/** What a planner works out for the dry run; the rest of it comes from the command and the page. */
export type PlanPreview = Pick<DryRunPreview, "plan" | "diff" | "changes"> & { warnings?: DryRunPreview["warnings"] };

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
  return {
    command,
    preview: {
      dryRun: true,
      commandName: command.name,
      baseRevision: page.revision,
      ...preview,
      warnings: preview.warnings ?? [],
    },
    ...(refuse ? { refuse } : {}),
  };
}

/** The plan's line for a command that moves the page to its next revision. */
export const nextRevisionStep = (page: PageRecord) => `page revision ${page.revision} → ${page.revision + 1}`;
