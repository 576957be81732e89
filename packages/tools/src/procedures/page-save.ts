import { planPageSave } from "../planning/page-save";
import { runWrite } from "../run-write";
import { toolProcedure } from "../tool-procedure";

/** mnote.page.save — write the page body (replace or append) as one kernel command. */
export const pageSave = toolProcedure("mnote.page.save").mutation((call, ctx) => runWrite(ctx, call, planPageSave));
