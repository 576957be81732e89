import { z } from "zod";
import { LIMITS } from "../limits";
import { storable } from "../text";
import { BaseRevisionSchema, defineTool, AppliedDecisionSchema } from "./shared";

export const pageUpdateTitleTool = defineTool({
  name: "mnote.page.update_title",
  kind: "write",
  capability: "page.write",
  commandName: "page.head.updateTitle",
  description: "Rename a page. The title is trimmed and must be 1-200 characters.",
  args: z.strictObject({
    title: storable(z.string())
      .trim()
      .min(1, "title must not be empty")
      .max(LIMITS.titleLength, `title is longer than ${LIMITS.titleLength} characters`),
    baseRevision: BaseRevisionSchema,
  }),
  result: z.object({
    commandName: z.literal("page.head.updateTitle"),
    revision: z.number().int(),
    decision: AppliedDecisionSchema.optional(),
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
});
