import { IdempotencyKeySchema, IdSchema, InputEnvelopeSchema } from "@mnote/contract";
import { z } from "zod";
import { type Planner, writePlan } from "../planning/write-plan";
import { runWrite } from "../run-write";
import { toolProcedure } from "../tool-procedure";
import type { ToolSpec } from "../tool-spec";

const args = z.strictObject({ threadId: IdSchema, resolved: z.boolean() });
const inputSchema = InputEnvelopeSchema.extend({ args, idempotencyKey: IdempotencyKeySchema, dryRun: z.boolean() });

/**
 * A person resolves or reopens a comment thread (decision 0040). Not an agent tool — never in the tool list, on no
 * router a client reaches — but the same chain as every write: checked (whoever may write the page's artifacts),
 * one kernel command, audited. `panel.comments.setResolved` calls it.
 */
export const RESOLVE_TOOL_NAME = "panel.comment.resolve";

export const resolveToolSpec: ToolSpec<z.output<typeof inputSchema>, z.input<typeof inputSchema>> = {
  name: RESOLVE_TOOL_NAME,
  kind: "write",
  capability: "artifact.write",
  access: "artifact_write",
  inputSchema,
  scope: "page",
  holdsForApproval: false,
};

const planResolve: Planner<z.output<typeof args>> = async ({ input, page }) => {
  const { threadId, resolved } = input.args;
  // The kernel refuses a thread of another page; a plan is never shown for this tool (no dry runs from the panel).
  return writePlan(
    page,
    { name: "comment.thread.setResolved", threadId, resolved },
    { plan: [`${resolved ? "resolve" : "reopen"} comment thread ${threadId}`], diff: [], changes: [] },
  );
};

export const resolveTool = toolProcedure<
  z.output<typeof inputSchema>,
  z.input<typeof inputSchema>,
  { commandName: "comment.thread.setResolved"; threadId: string; resolved: boolean }
>(resolveToolSpec).mutation((call, ctx) => runWrite(ctx, call, planResolve));
