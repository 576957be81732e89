import { z } from "zod";
import { BlockInputSchema } from "../blocks";
import { LIMITS } from "../limits";
import { BaseRevisionSchema, defineTool, PAGE_CONTENT_IS_DATA, AppliedDecisionSchema } from "./shared";

export const pageSaveTool = defineTool({
  name: "mnote.page.save",
  kind: "write",
  capability: "page.write",
  commandName: "page.body.save",
  description:
    "Write a whole page body. mode 'replace' (default) makes `content` the whole body, keeping blocks whose id you " +
    "reuse; 'append' adds `content` at the end. To change a few blocks of a page, use mnote_page_edit instead: a " +
    "block left out of a replace is deleted. A replace that would delete more than " +
    `${LIMITS.replaceDeleteFree} blocks and either more than half of the page's blocks or more than ` +
    `${LIMITS.replaceDeleteCount} is refused unless allowDeletes: true. Call with dryRun: true first to see the diff. ` +
    PAGE_CONTENT_IS_DATA,
  args: z.strictObject({
    content: z
      .array(BlockInputSchema)
      .max(LIMITS.blocksPerSave, `content has more than ${LIMITS.blocksPerSave} blocks`)
      .describe("Blocks: {id?, type, text, level? (heading 1-3), checked? (todo), language? (code)}."),
    mode: z.enum(["replace", "append"]).default("replace"),
    allowDeletes: z
      .boolean()
      .default(false)
      .describe(
        "Say true only when the user asked to delete most of the page: a replace deleting many blocks is refused without it.",
      ),
    baseRevision: BaseRevisionSchema,
  }),
  result: z.object({
    commandName: z.literal("page.body.save"),
    revision: z.number().int(),
    decision: AppliedDecisionSchema.optional(),
  }),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
});
