import {
  BaseRevisionSchema,
  EditOperationSchema,
  IdempotencyKeySchema,
  IdSchema,
  InputEnvelopeSchema,
  LIMITS,
  PAGE_OPTION_KEYS,
  type Change,
} from "@mnote/contract";
import { diffBlocks, mergeChanges, placementsFromOrder, planChosen, summarizeChanges } from "@mnote/diff";
import { CREATED_PAGE_CHANGED } from "@mnote/kernel";
import { withInsertIds } from "../planning/page-edit";
import { proposalOnPage } from "../proposal-merge";
import { toOperations } from "../anchored-operations";
import { counted } from "../counted";
import { z } from "zod";
import { AppError } from "../app-error";
import type { Planner } from "../planning/write-plan";
import { runWrite } from "../run-write";
import { toolProcedure } from "../tool-procedure";
import type { ToolSpec } from "../tool-spec";

/**
 * `apply`: what a person's decision on a revert proposal writes (decision 0030), as `panel.proposals.decide` planned
 * it on the page now; left out, a real call applies every change of the revert that does not conflict.
 */
const args = z.strictObject({
  commandId: IdSchema,
  baseRevision: BaseRevisionSchema,
  apply: z
    .strictObject({
      operations: z.array(EditOperationSchema).max(LIMITS.editOperations),
      title: z.string().max(LIMITS.titleLength).optional(),
      options: z.record(z.enum(PAGE_OPTION_KEYS as [string, ...string[]]), z.boolean()).optional(),
    })
    .optional(),
});

/**
 * A person takes back an applied AI write: a new kernel command restoring the
 * page to its revision before that command. Not an agent tool — it is never in the
 * tool list, nor on a router a client reaches — but it runs the same chain:
 * dry-runnable, conflict-checked, audited.
 */
const inputSchema = InputEnvelopeSchema.extend({ args, idempotencyKey: IdempotencyKeySchema, dryRun: z.boolean() });

/** The tool name a revert is recorded under (its proposals and writes); typed so the panel's labels list it. */
export const REVERT_TOOL_NAME = "panel.page.revert";

export const revertToolSpec: ToolSpec<z.output<typeof inputSchema>, RevertToolInput> = {
  name: REVERT_TOOL_NAME,
  kind: "write",
  capability: "page.write",
  access: "page_write",
  inputSchema,
  scope: "page",
  holdsForApproval: false,
};

export type RevertToolInput = z.input<typeof inputSchema>;

/** What an applied revert answers (the kernel's result of a `page.revert` command). */
export interface RevertResult {
  commandName: "page.revert";
  revision: number;
  targetCommandId: string;
}

export const planPageRevert: Planner<z.output<typeof args>> = async ({ kernel, input, key, page }) => {
  const { commandId } = input.args;
  const target = await kernel.getCommand(commandId);
  if (!target || target.identity.documentId !== page.id) {
    throw new AppError("mnote_tool_invalid_input", "args.commandId: no such command on this page");
  }
  if (target.name === "page.create") return planPageRemoval(kernel, page, commandId);
  const states = await kernel.getCommandStates(commandId);
  if (!states)
    throw new AppError("mnote_tool_invalid_input", "args.commandId: the page around that command cannot be rebuilt");
  // Exactly that command's changes, inverted (decision 0030): from the page right after it back to the page right
  // before it. Merged with the page now, a block a later write touched is a conflict, never overwritten.
  const blockChanges = diffBlocks(states.after.blocks, states.before.blocks);
  const changes: Change[] = [...blockChanges];
  if (states.before.title !== states.after.title)
    changes.push({ kind: "set_title", before: states.after.title, after: states.before.title });
  for (const key of PAGE_OPTION_KEYS) {
    if (states.before.options[key] !== states.after.options[key]) {
      changes.push({ kind: "set_option", key, before: states.after.options[key], after: states.before.options[key] });
    }
  }
  const placements = placementsFromOrder(states.before.blocks, changes);
  const apply = input.args.apply ?? (await everyCurrentChange(kernel, page, changes, placements));
  const operations = await withInsertIds(kernel, page, apply.operations, key);
  return {
    command: {
      name: "page.revert",
      targetCommandId: commandId,
      operations,
      ...(apply.title !== undefined ? { title: apply.title } : {}),
      ...(apply.options ? { options: apply.options } : {}),
    },
    placements,
    preview: {
      dryRun: true,
      commandName: "page.revert",
      baseRevision: page.revision,
      plan: [
        `take back ${counted(changes.length, "change")} of the edit that ${(await editDescription(kernel, commandId)) ?? `moved the page from revision ${states.revisionBefore} to ${states.revisionAfter}`}; blocks changed since are conflicts, decided one by one (command ${commandId})`,
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

/**
 * The revert of a page.create (decision 0046): the page goes again — every block deleted, the page removed — while
 * nothing else was written to it; after that, the plan is shown but the write is refused (the kernel checks again).
 */
async function planPageRemoval(
  kernel: Parameters<Planner<unknown>>[0]["kernel"],
  page: Parameters<Planner<unknown>>[0]["page"],
  commandId: string,
) {
  const blocks = await kernel.getBlocks(page.id);
  const changes: Change[] = blocks.map((block, index) => ({ kind: "delete", index, block }));
  // An edit since moved the revision; a comment or an artifact does not, and the kernel refuses those while writing.
  const touched = page.revision !== 1;
  return {
    command: { name: "page.revert" as const, targetCommandId: commandId, removePage: true },
    placements: changes.map(() => null),
    preview: {
      dryRun: true as const,
      commandName: "page.revert",
      baseRevision: page.revision,
      plan: [
        `remove the page ${JSON.stringify(page.title)} that command ${commandId} created, with its ${counted(blocks.length, "block")}`,
      ],
      diff: summarizeChanges(changes, "replace"),
      changes,
      warnings: [],
    },
    ...(touched ? { refuse: { code: "mnote_tool_invalid_input" as const, message: CREATED_PAGE_CHANGED } } : {}),
  };
}

/** What the reverted write did, in the words its audit record keeps ("inserted 'Alpha line'"), when it has them. */
async function editDescription(kernel: Parameters<Planner<unknown>>[0]["kernel"], commandId: string) {
  const description = (await kernel.getRevertFacts(commandId)).write?.detail?.description;
  return typeof description === "string" && description ? description : null;
}

/** A revert applied whole: every change of it that does not conflict with the page now. */
async function everyCurrentChange(
  kernel: Parameters<Planner<unknown>>[0]["kernel"],
  page: Parameters<Planner<unknown>>[0]["page"],
  changes: Change[],
  placements: ReturnType<typeof placementsFromOrder>,
) {
  const onPage = await proposalOnPage(kernel, page, { preview: { changes } as never, placements });
  const merged = mergeChanges(changes, placements, onPage.page);
  const chosen = changes.flatMap((change, index) =>
    merged[index]!.state === "current" ? [{ index, change, placement: placements[index] }] : [],
  );
  const set = planChosen(chosen, onPage.page, onPage.inserted);
  return { operations: toOperations(set.steps), title: set.title, options: set.options };
}

/** The revert as a tool procedure: not on any router a client reaches; `panel.page.revert` and approvals call it. */
export const revertTool = toolProcedure<z.output<typeof inputSchema>, RevertToolInput, RevertResult>(
  revertToolSpec,
).mutation((call, ctx) => runWrite(ctx, call, planPageRevert));
