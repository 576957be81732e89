import { artifactCreateSummaryTool, type ToolArgs, type ToolInput, type ToolResult } from "@mnote/contract";
import { contractToolSpec } from "../tool-spec";
import { type Planner, writePlan } from "../planning/write-plan";
import { runWrite } from "../run-write";
import { toolProcedure } from "../tool-procedure";

export const artifactCreateSummaryMeta = contractToolSpec(artifactCreateSummaryTool.name);

export const planCreateSummary: Planner = async ({ kernel, input, page }) => {
  const { summary } = input.args as ToolArgs<"mnote.artifact.create_summary">;
  const existing = await kernel.getSummary(page.id);
  return writePlan(
    page,
    { name: "artifact.summary.upsert", summary },
    {
      plan: [
        existing ? "update the page's summary node" : "create the page's summary node",
        existing ? "confirm its reference edge" : "create a reference edge page → summary",
      ],
      diff: [{ op: existing ? "update_summary" : "create_summary" }],
      changes: [{ kind: "set_summary", before: existing?.content ?? null, after: summary }],
    },
  );
};

/** mnote.artifact.create_summary — the page's one summary node and its edge, created or updated. */
export const artifactCreateSummary = toolProcedure<ToolInput<"mnote.artifact.create_summary">>(
  artifactCreateSummaryMeta,
).mutation(({ ctx }) => runWrite<ToolResult<"mnote.artifact.create_summary">>(ctx, planCreateSummary));
