import type { ToolArgs } from "@mnote/contract";
import { nextRevisionStep, type Planner, writePlan } from "../planning/write-plan";
import { runWrite } from "../run-write";
import { toolProcedure } from "../tool-procedure";

export const planUpdateTitle: Planner<ToolArgs<"mnote.page.update_title">> = async ({ input, page }) => {
  const { title } = input.args;
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
export const pageUpdateTitle = toolProcedure("mnote.page.update_title").mutation((call, ctx) =>
  runWrite(ctx, call, planUpdateTitle),
);
