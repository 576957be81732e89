import {
  isWiredOption,
  type PageOptionKey,
  pageUpdateOptionsTool,
  type ToolArgs,
  type ToolInput,
  type ToolResult,
  type ToolWarning,
} from "@mnote/contract";
import { contractToolSpec } from "../tool-spec";
import { nextRevisionStep, type Planner, writePlan } from "../planning/write-plan";
import { runWrite } from "../run-write";
import { toolProcedure } from "../tool-procedure";

export const pageUpdateOptionsMeta = contractToolSpec(pageUpdateOptionsTool.name);

export const planUpdateOptions: Planner = async ({ input, page }) => {
  const { options } = input.args as ToolArgs<"mnote.page.update_options">;
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
export const pageUpdateOptions = toolProcedure<ToolInput<"mnote.page.update_options">>(pageUpdateOptionsMeta).mutation(
  ({ ctx }) => runWrite<ToolResult<"mnote.page.update_options">>(ctx, planUpdateOptions),
);
