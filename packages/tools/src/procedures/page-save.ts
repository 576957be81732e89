import { pageSaveTool, type ToolInput, type ToolResult } from "@mnote/contract";
import { planPageSave } from "../planning/page-save";
import { runWrite } from "../run-write";
import { contractToolSpec } from "../tool-spec";
import { toolProcedure } from "../tool-procedure";

export const pageSaveMeta = contractToolSpec(pageSaveTool.name);

/** mnote.page.save — write the page body (replace or append) as one kernel command. */
export const pageSave = toolProcedure<ToolInput<"mnote.page.save">>(pageSaveMeta).mutation(({ ctx }) =>
  runWrite<ToolResult<"mnote.page.save">>(ctx, planPageSave),
);
