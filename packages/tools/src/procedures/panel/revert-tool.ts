import {
  BaseRevisionSchema,
  IdempotencyKeySchema,
  IdSchema,
  InputEnvelopeSchema,
  PAGE_OPTION_KEYS,
  type Change,
} from "@mnote/contract";
import { diffBlocks, summarizeChanges } from "@mnote/diff";
import { z } from "zod";
import { AppError } from "../../app-error";
import type { Planner } from "../../planning/write-plan";
import { runWrite } from "../../run-write";
import { toolProcedure } from "../../tool-procedure";
import type { ToolSpec } from "../../tool-spec";

const args = z.strictObject({ commandId: IdSchema, baseRevision: BaseRevisionSchema });

/**
 * A person takes back an applied AI write: a new kernel command restoring the
 * page to its revision before that command. Not an agent tool — it is never in the
 * tool list, nor on a router a client reaches — but it runs the same chain:
 * dry-runnable, conflict-checked, audited.
 */
const inputSchema = InputEnvelopeSchema.extend({ args, idempotencyKey: IdempotencyKeySchema, dryRun: z.boolean() });

/** The tool name a revert is recorded under (its proposals and writes); typed so the panel's labels list it. */
export const REVERT_TOOL_NAME = "panel.page.revert";
export type PanelToolName = typeof REVERT_TOOL_NAME;

export const revertToolSpec: ToolSpec<z.output<typeof inputSchema>, RevertToolInput> = {
  name: REVERT_TOOL_NAME,
  kind: "write",
  capability: "page.write",
  access: "page_write",
  inputSchema,
  holdsForApproval: false,
};

export type RevertToolInput = z.input<typeof inputSchema>;

/** What an applied revert answers (the kernel's result of a `page.revert` command). */
export interface RevertResult {
  commandName: "page.revert";
  revision: number;
  targetCommandId: string;
}

export const planPageRevert: Planner<z.output<typeof args>> = async ({ kernel, input, page }) => {
  const { commandId } = input.args;
  const target = await kernel.getCommand(commandId);
  if (!target || target.identity.documentId !== page.id) {
    throw new AppError("mnote_tool_invalid_input", "args.commandId: no such command on this page");
  }
  const before = await kernel.getPageStateBefore(commandId);
  if (!before)
    throw new AppError("mnote_tool_invalid_input", "args.commandId: the page before that command cannot be rebuilt");
  const current = await kernel.getBlocks(page.id);
  const blockChanges = diffBlocks(current, before.state.blocks);
  const changes: Change[] = [...blockChanges];
  if (before.state.title !== page.title)
    changes.push({ kind: "set_title", before: page.title, after: before.state.title });
  for (const key of PAGE_OPTION_KEYS) {
    if (before.state.options[key] !== page.options[key]) {
      changes.push({ kind: "set_option", key, before: page.options[key], after: before.state.options[key] });
    }
  }
  return {
    command: { name: "page.revert", targetCommandId: commandId },
    preview: {
      dryRun: true,
      commandName: "page.revert",
      baseRevision: page.revision,
      plan: [
        `restore the page as it was at revision ${before.revision}, before command ${commandId} (${target.name})`,
        `page revision ${page.revision} → ${page.revision + 1}`,
      ],
      diff: [
        ...summarizeChanges(blockChanges, "replace"),
        ...(changes.some((c) => c.kind === "set_title") ? [{ op: "set_title" as const, fields: ["title"] }] : []),
        ...(changes.some((c) => c.kind === "set_option")
          ? [{ op: "set_options" as const, fields: changes.flatMap((c) => (c.kind === "set_option" ? [c.key] : [])) }]
          : []),
      ],
      changes,
      warnings: [],
    },
  };
};

/** The revert as a tool procedure: not on any router a client reaches; `panel.page.revert` and approvals call it. */
export const revertTool = toolProcedure<z.output<typeof inputSchema>, RevertToolInput, RevertResult>(
  revertToolSpec,
).mutation((call, ctx) => runWrite(ctx, call, planPageRevert));
