import { pageUpdateTitleTool, type ToolArgs, type ToolInput, type ToolResult } from "@mnote/contract";
import { contractToolSpec } from "../tool-spec";
import { nextRevisionStep, type Planner, writePlan } from "../planning/write-plan";
import { runWrite } from "../run-write";
import { toolProcedure } from "../tool-procedure";

export const pageUpdateTitleMeta = contractToolSpec(pageUpdateTitleTool.name);

export const planUpdateTitle: Planner = async ({ input, page }) => {
  const { title } = input.args as ToolArgs<"mnote.page.update_title">;
  return writePlan(
    page,
    { name: "page.head.updateTitle", title },
    {
      plan: ["rename the page", nextRevisionStep(page)],
      diff: [{ op: "set_title", fields: ["title"] }],
      changes: [{ kind: "set_title", before: page.title, after: title }],
    },
  );
};

/** mnote.page.update_title — rename a page (trimmed, 1–200 characters). */
export const pageUpdateTitle = toolProcedure<ToolInput<"mnote.page.update_title">>(pageUpdateTitleMeta).mutation(
  ({ ctx }) => runWrite<ToolResult<"mnote.page.update_title">>(ctx, planUpdateTitle),
);
