import type { ToolArgs } from "@mnote/contract";
import { type Planner, writePlan } from "../planning/write-plan";
import { runWrite } from "../run-write";
import { toolProcedure } from "../tool-procedure";

export const planCreateSummary: Planner<ToolArgs<"mnote.artifact.create_summary">> = async ({
  kernel,
  input,
  page,
}) => {
  const { summary } = input.args;
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
export const artifactCreateSummary = toolProcedure("mnote.artifact.create_summary").mutation((call, ctx) =>
  runWrite(ctx, call, planCreateSummary),
);
