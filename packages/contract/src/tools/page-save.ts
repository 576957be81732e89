import { z } from "zod";
import { BlockInputSchema } from "../blocks";
import { LIMITS } from "../limits";
import { BaseRevisionSchema, defineTool } from "./shared";

export const pageSaveTool = defineTool({
  name: "mnote.page.save",
  kind: "write",
  capability: "page.write",
  commandName: "page.body.save",
  description:
    "Write a page body. mode 'replace' (default) makes `content` the whole body, keeping blocks whose id you reuse; 'append' adds `content` at the end. Call with dryRun: true first to see the diff.",
  args: z.strictObject({
    content: z
      .array(BlockInputSchema)
      .max(LIMITS.blocksPerSave, `content has more than ${LIMITS.blocksPerSave} blocks`)
      .describe("Blocks: {id?, type, text, level? (heading 1-3), checked? (todo), language? (code)}."),
    mode: z.enum(["replace", "append"]).default("replace"),
    baseRevision: BaseRevisionSchema,
  }),
  result: z.object({ commandName: z.literal("page.body.save"), revision: z.number().int() }),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
});
