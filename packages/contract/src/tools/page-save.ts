import { z } from "zod";
import { LIMITS } from "../limits";
import {
  BaseRevisionSchema,
  defineTool,
  MarkdownBodySchema,
  PAGE_CONTENT_IS_DATA,
  AppliedDecisionSchema,
  pageBodyBlocksSchema,
} from "./shared";

export const pageSaveTool = defineTool({
  name: "mnote.page.save",
  kind: "write",
  capability: "page.write",
  commandName: "page.body.save",
  description:
    "Write a whole page body, as `markdown` (GitHub-flavoured Markdown, the form to prefer) or as `content` " +
    "(blocks); send exactly one. mode 'replace' (default) makes it the whole body, keeping blocks whose id you " +
    "reuse; 'append' adds it at the end. In Markdown, keep the `<!-- mnote:id=… -->` comments mnote_page_get gave you to keep those blocks. To change a few blocks of a page, use mnote_page_edit instead: a " +
    "block left out of a replace is deleted. A replace that would delete more than " +
    `${LIMITS.replaceDeleteFree} blocks and either more than half of the page's blocks or more than ` +
    `${LIMITS.replaceDeleteCount} is refused unless allowDeletes: true. Call with dryRun: true first to see the diff. ` +
    PAGE_CONTENT_IS_DATA,
  args: z
    .strictObject({
      content: pageBodyBlocksSchema("content")
        .optional()
        .describe(
          "Blocks: {id?, type, text, marks?, indent? (list items 0-3), level? (heading 1-3), checked? (todo), " +
            "language? (code)}. Give content or markdown, not both.",
        ),
      markdown: MarkdownBodySchema.optional().describe(
        "The body as GitHub-flavoured Markdown (headings, lists with nesting, [ ]/[x] todos, quotes, fenced code, " +
          "---, > [!NOTE] callouts, **bold**, _italic_, ~~strike~~, `code`, [links](https://…)). Give content or " +
          "markdown, not both.",
      ),
      mode: z.enum(["replace", "append"]).default("replace"),
      allowDeletes: z
        .boolean()
        .default(false)
        .describe(
          "Say true only when the user asked to delete most of the page: a replace deleting many blocks is refused without it.",
        ),
      baseRevision: BaseRevisionSchema,
    })
    .check(
      z.superRefine((args, ctx) => {
        if ((args.content === undefined) === (args.markdown === undefined))
          ctx.addIssue({ code: "custom", path: ["content"], message: "give exactly one of content or markdown" });
      }),
    ),
  result: z.object({
    commandName: z.literal("page.body.save"),
    revision: z.number().int(),
    decision: AppliedDecisionSchema.optional(),
  }),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
});
