import { IdSchema, TOOL_ERROR_MESSAGES as M } from "@mnote/contract";
import type { TokenRecord } from "@mnote/kernel";
import { z } from "zod";
import { canReadPage, hasAccess } from "../access";
import { resolveToken } from "../resolve-token";
import { doorRefusal, type ToolsContext } from "../context";
import type { AccessNeed } from "../tool-spec";
import { middleware, publicProcedure } from "../trpc";
import { appErrors } from "./app-errors";
import { AppError } from "../app-error";

/**
 * The panel's own reads and decisions. Only a person's token at the panel opens them:
 * an agent token never lists proposals or approves its own edits. The door rule is
 * the one the tool chain applies (`doorRefusal`); the token is read as everywhere else (`resolveToken`).
 * Unlike `signedInPerson`, it says why a token is refused: sign in again, or the wrong door.
 */
const signedInPerson = middleware(async ({ ctx, next }) => {
  const token = await resolveToken(ctx.kernel, ctx.authorization);
  if (!token) throw new AppError("mnote_tool_unauthenticated", "sign in again");
  const refusal =
    ctx.door === "panel" ? doorRefusal("panel", token.holder) : "the panel's procedures answer only at the panel";
  if (refusal) throw new AppError("mnote_tool_permission_denied", refusal);
  return next({ ctx: { token } });
});

export const panelProcedure = publicProcedure.use(appErrors).use(signedInPerson);

/** A page as the panel names it: the contract's id rules, so the panel accepts exactly the ids the tools do. */
export const PageRefSchema = z.object({ workspaceId: IdSchema, documentId: IdSchema });
/** A proposal is named by the id of the audit record holding it, on its page. */
export const ProposalRefSchema = PageRefSchema.extend({ proposalId: z.number().int().positive() });

/** What a panel procedure's code receives: the tools context and the signed-in person's token. */
export type PersonContext = ToolsContext & { token: TokenRecord };

/** The page, if the signed-in person may use it as asked; the same refusal for missing and unreadable pages. */
export async function requirePage(
  ctx: PersonContext,
  ref: z.infer<typeof PageRefSchema>,
  need: AccessNeed = "page_read",
) {
  const facts = await ctx.kernel.getAccessFacts({ ...ref, userId: ctx.token.userId });
  // The tool chain's rule, failing the same way (middleware/checks.ts, step 5): unreadable and missing pages alike.
  if (!canReadPage(facts)) throw new AppError("mnote_tool_permission_denied", M.pageUnreadable);
  if (!hasAccess(facts, need)) {
    throw new AppError(
      "mnote_tool_permission_denied",
      need === "artifact_write" ? M.artifactWriteDenied : M.pageWriteDenied,
    );
  }
  return { page: facts.page!, role: facts.role!, workspace: facts.workspace!, facts };
}
