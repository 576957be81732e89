import { pageEditTool, type ToolInput, type ToolResult } from "@mnote/contract";
import { planPageEdit } from "../planning/page-edit";
import { runWrite } from "../run-write";
import { contractToolSpec } from "../tool-spec";
import { toolProcedure } from "../tool-procedure";

export const pageEditMeta = contractToolSpec(pageEditTool.name);

/** mnote.page.edit — change blocks by id as one kernel command, reading and writing only those blocks. */
export const pageEdit = toolProcedure<ToolInput<"mnote.page.edit">>(pageEditMeta).mutation(({ ctx }) =>
  runWrite<ToolResult<"mnote.page.edit">>(ctx, planPageEdit),
);
