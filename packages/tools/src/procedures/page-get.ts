import { pageGetTool, summarizeBlocks, type ToolInput, type ToolResult } from "@mnote/contract";
import { successEnvelope } from "../call";
import { contractToolSpec } from "../tool-spec";
import { checkedCall, toolProcedure } from "../tool-procedure";

export const pageGetMeta = contractToolSpec(pageGetTool.name);

/** mnote.page.get — the page as the caller may see it, with the revision to base edits on. */
export const pageGet = toolProcedure<ToolInput<"mnote.page.get">>(pageGetMeta).query(async ({ ctx }) => {
  const { kernel, call, input, page } = checkedCall(ctx);
  const args = input.args as ToolResult<"mnote.page.get"> & { includeBody: boolean; includeOptions: boolean; includeBlocks: boolean };
  const result: ToolResult<"mnote.page.get"> = {
    documentId: page.id,
    workspaceId: page.workspaceId,
    title: page.title,
    revision: page.revision,
  };
  if (args.includeBody || args.includeBlocks) {
    const blocks = await kernel.getBlocks(page.id);
    if (args.includeBody) result.bodySummary = summarizeBlocks(blocks);
    if (args.includeBlocks) result.blocks = blocks;
  }
  if (args.includeOptions) result.pageOptions = page.options;
  return successEnvelope(call, result, "read", null);
});
