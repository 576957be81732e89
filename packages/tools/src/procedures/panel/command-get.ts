import { IdSchema } from "@mnote/contract";
import { PageRefSchema, panelProcedure, requirePage } from "../../panel/panel-procedure";
import { loadNames, who } from "../../panel/people";
import { AppError } from "../../app-error";

export const CommandGetInput = PageRefSchema.extend({ commandId: IdSchema });

/** panel.command.get — the kernel command behind an audit.commandId, with who ran it by name. */
export const commandGet = panelProcedure.input(CommandGetInput).query(async ({ ctx, input }) => {
  const { page } = await requirePage(ctx, input);
  const command = await ctx.kernel.getCommand(input.commandId);
  if (!command || command.identity.documentId !== page.id)
    throw new AppError("mnote_tool_not_found", "no such command on this page");
  return { ...command, who: who(await loadNames(ctx.kernel, [command.identity]), command.identity) };
});
