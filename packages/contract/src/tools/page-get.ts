import { z } from "zod";
import { BlockSchema } from "../blocks";
import { PageOptionsSchema } from "../options";
import { defineTool } from "./shared";

export const pageGetTool = defineTool({
  name: "mnote.page.get",
  kind: "read",
  capability: "page.read",
  commandName: null,
  description:
    "Read an mnote page: title, revision, a short body summary, page options and blocks. Use the revision as baseRevision for edits.",
  args: z.strictObject({
    includeBody: z.boolean().default(true).describe("Include bodySummary."),
    includeOptions: z.boolean().default(true).describe("Include pageOptions."),
    includeBlocks: z.boolean().default(true).describe("Include the full block list."),
  }),
  result: z.object({
    documentId: z.string(),
    workspaceId: z.string(),
    title: z.string(),
    revision: z.number().int(),
    bodySummary: z.string().optional(),
    pageOptions: PageOptionsSchema.optional(),
    blocks: z.array(BlockSchema).optional(),
  }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
});
