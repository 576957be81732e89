import { AppError } from "../app-error";
import { type Block, describeIssues, TOOLS } from "@mnote/contract";
import type { z } from "zod";
import { applySelectedChanges } from "@mnote/diff";
import { blockIdsNamed, type BlockEditOperation, type PageRecord, simulateBlockEdits } from "@mnote/kernel";
import type { ToolsContext } from "../context";
import { keptOperations, withInsertIds } from "../planning/page-edit";
import { withIds } from "../planning/page-save";
import { withKeptMarks } from "../markdown-args";
import type { Proposal } from "./proposals";

/**
 * A page.save or page.edit proposal worked out again as args for its tool, with only the kept changes
 * (`keep`: indices into `preview.changes`; null keeps all) and a person's `edits` to proposed blocks (by
 * block id) in place of the agent's versions. The proposal is not stale, so the page is the one its ids
 * were derived against; the args then go through the tool's whole chain, limits included (decision 0016).
 */
export async function proposalArgs(
  ctx: ToolsContext,
  page: PageRecord,
  proposal: Proposal,
  keep: ReadonlySet<number> | null,
  edits: ReadonlyMap<string, Block> = new Map(),
): Promise<Record<string, unknown>> {
  const kept = (i: number) => keep === null || keep.has(i);
  if (proposal.toolName === "mnote.page.edit") {
    const args = storedArgs(TOOLS["mnote.page.edit"].args, proposal.args);
    let operations = await withInsertIds(ctx.kernel, page, args.operations, proposal.idempotencyKey);
    if (keep !== null) {
      // Which operation made each change: worked out again on the (unchanged) page, reading only the blocks it names.
      const edit = simulateBlockEdits(
        await ctx.kernel.findBlocks(page.id, blockIdsNamed(operations)),
        page.blockCount,
        operations,
      );
      operations = keptOperations(operations, edit.changes, edit.operationOfChange, kept);
      if (operations.length === 0) throw new AppError("mnote_tool_invalid_input", "keep at least one change");
    }
    return { operations: withEditedOperations(operations, edits) };
  }
  const args = storedArgs(TOOLS["mnote.page.save"].args, proposal.args);
  if (!args.content) throw new AppError("mnote_tool_invalid_input", "the proposal's args hold no blocks");
  const changes = proposal.preview.changes;
  let content: Block[];
  if (args.mode === "append") {
    content = changes.flatMap((change, i) => (kept(i) && change.kind === "insert" ? [change.block] : []));
  } else {
    const current = await ctx.kernel.getBlocks(page.id);
    const proposed = withIds(
      withKeptMarks(args.content, current),
      proposal.idempotencyKey,
      new Set(current.map((block) => block.id)),
    );
    content = keep === null ? proposed : applySelectedChanges(current, proposed, (_change, i) => kept(i), changes);
  }
  return {
    content: content.map((block) => edits.get(block.id) ?? block),
    mode: args.mode,
    allowDeletes: args.allowDeletes ?? false,
  };
}

/**
 * A proposal's args as its audit record kept them, parsed again by the tool's schema: stored data is checked like
 * any other input before a person's decision acts on it.
 */
function storedArgs<Args extends z.ZodType>(schema: Args, args: unknown): z.output<Args> {
  const parsed = schema.safeParse(args);
  if (!parsed.success)
    throw new AppError(
      "mnote_tool_invalid_input",
      `the proposal's args: invalid input: ${describeIssues(parsed.error)}`,
    );
  return parsed.data;
}

/**
 * Page.edit operations with a person's versions of the blocks they insert or replace: the last operation
 * that sets a block's content takes the edit (an insert's block, or a replace's fields).
 */
function withEditedOperations(
  operations: BlockEditOperation[],
  edits: ReadonlyMap<string, Block>,
): BlockEditOperation[] {
  const result = [...operations];
  for (const [id, block] of edits) {
    for (let i = result.length - 1; i >= 0; i--) {
      const operation = result[i]!;
      if (operation.op === "replace" && operation.blockId === id) {
        const { id: _id, ...fields } = block;
        result[i] = { op: "replace", blockId: id, ...fields };
        break;
      }
      if (operation.op === "insert" && operation.blocks.some((b: Block) => b.id === id)) {
        result[i] = { ...operation, blocks: operation.blocks.map((b: Block) => (b.id === id ? block : b)) };
        break;
      }
    }
  }
  return result;
}
