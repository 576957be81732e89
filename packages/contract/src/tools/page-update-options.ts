import { z } from "zod";
import { PageOptionsPatchSchema } from "../options";
import { BaseRevisionSchema, defineTool, AppliedDecisionSchema } from "./shared";

export const pageUpdateOptionsTool = defineTool({
  name: "mnote.page.update_options",
  kind: "write",
  capability: "page.write",
  commandName: "page.layout.updateOptions",
  description:
    "Change page options (wideLayout, smallText, showToc; protectEditing is planned and not yet supported). Only the keys you pass change.",
  args: z.strictObject({
    options: PageOptionsPatchSchema.refine((o) => Object.keys(o).length > 0, "options must set at least one option"),
    baseRevision: BaseRevisionSchema,
  }),
  result: z.object({
    commandName: z.literal("page.layout.updateOptions"),
    revision: z.number().int(),
    decision: AppliedDecisionSchema.optional(),
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
});
