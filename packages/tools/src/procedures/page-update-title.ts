import { pageUpdateTitleTool, type ToolArgs, type ToolInput, type ToolResult } from "@mnote/contract";
import { contractToolSpec } from "../tool-spec";
import { type Planner, runWrite, toolProcedure } from "../tool-procedure";

export const pageUpdateTitleMeta = contractToolSpec(pageUpdateTitleTool.name);

export const planUpdateTitle: Planner = async ({ input, page }) => {
  const { title } = input.args as ToolArgs<"mnote.page.update_title">;
  return {
    command: { name: "page.head.updateTitle", title },
    preview: {
      dryRun: true,
      commandName: "page.head.updateTitle",
      baseRevision: page.revision,
      plan: [`rename the page`, `page revision ${page.revision} → ${page.revision + 1}`],
      diff: [{ op: "set_title", fields: ["title"] }],
      changes: [{ kind: "set_title", before: page.title, after: title }],
      warnings: [],
    },
  };
};

/** mnote.page.update_title — rename a page (trimmed, 1–200 characters). */
export const pageUpdateTitle = toolProcedure<ToolInput<"mnote.page.update_title">>(pageUpdateTitleMeta).mutation(
  ({ ctx }) => runWrite<ToolResult<"mnote.page.update_title">>(ctx, planUpdateTitle),
);
