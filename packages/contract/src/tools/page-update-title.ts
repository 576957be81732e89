import { z } from "zod";
import { BaseRevisionSchema, defineTool, AppliedDecisionSchema, PageTitleSchema } from "./shared";

export const pageUpdateTitleTool = defineTool({
  name: "mnote.page.update_title",
  kind: "write",
  capability: "page.write",
  commandName: "page.head.updateTitle",
  description: "Rename a page. The title is trimmed and must be 1-200 characters.",
  args: z.strictObject({
    title: PageTitleSchema,
    baseRevision: BaseRevisionSchema,
  }),
  result: z.object({
    commandName: z.literal("page.head.updateTitle"),
    revision: z.number().int(),
    decision: AppliedDecisionSchema.optional(),
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
});
