import { planPageEdit } from "../planning/page-edit";
import { runWrite } from "../run-write";
import { toolProcedure } from "../tool-procedure";

/** mnote.page.edit — change blocks by id as one kernel command, reading and writing only those blocks. */
export const pageEdit = toolProcedure("mnote.page.edit").mutation((call, ctx) => runWrite(ctx, call, planPageEdit));
