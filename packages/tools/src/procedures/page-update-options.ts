import { isWiredOption, type PageOptionKey, type ToolArgs, type ToolWarning } from "@mnote/contract";
import { nextRevisionStep, type Planner, writePlan } from "../planning/write-plan";
import { runWrite } from "../run-write";
import { toolProcedure } from "../tool-procedure";

export const planUpdateOptions: Planner<ToolArgs<"mnote.page.update_options">> = async ({ input, page }) => {
  const { options } = input.args;
  const keys = Object.keys(options) as PageOptionKey[];
  const notWired = keys.filter((key) => !isWiredOption(key));
  const warnings: ToolWarning[] = notWired.map((key) => ({
    code: "option_not_wired",
    field: `options.${key}`,
    message: `${key} is planned but not supported by the editor yet; a real call will fail with mnote_tool_option_unsupported`,
  }));
  const changes = keys
    .filter((key) => page.options[key] !== options[key])
    .map((key) => ({ kind: "set_option" as const, key, before: page.options[key], after: options[key]! }));
  return writePlan(
    page,
    { name: "page.layout.updateOptions", options },
    {
      plan: [`set ${keys.join(", ")}`, nextRevisionStep(page)],
      diff: [{ op: "set_options", fields: keys }],
      changes,
      warnings,
    },
    notWired.length
      ? {
          code: "mnote_tool_option_unsupported",
          message: `options.${notWired[0]}: 该选项尚未接入编辑器 (runtimeSupport is planned, not wired); nothing was written`,
        }
      : undefined,
  );
};

/** mnote.page.update_options — change wired page options; planned ones only in a dry run, with a warning. */
export const pageUpdateOptions = toolProcedure("mnote.page.update_options").mutation((call, ctx) =>
  runWrite(ctx, call, planUpdateOptions),
);
