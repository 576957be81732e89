import { planPageCreate } from "../planning/page-create";
import { runWrite } from "../run-write";
import { toolProcedure } from "../tool-procedure";

/**
 * mnote.page.create — a new page in the workspace, as one kernel command. A private page belongs to the person who
 * proposed it: the caller, or the agent's person when someone approves the agent's proposal.
 */
export const pageCreate = toolProcedure("mnote.page.create").mutation((call, ctx) =>
  runWrite(ctx, call, planPageCreate(ctx.decision?.proposer.actorId ?? call.token.userId)),
);
