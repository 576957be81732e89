import { z } from "zod";
import {
  AppliedDecisionSchema,
  defineTool,
  MarkdownBodySchema,
  PAGE_CONTENT_IS_DATA,
  pageBodyBlocksSchema,
  PageTitleSchema,
} from "./shared";

export const pageCreateTool = defineTool({
  name: "mnote.page.create",
  kind: "write",
  capability: "page.write",
  // No page in the envelope: the page does not exist yet. The router names it by the call's key (decision 0046).
  scope: "workspace",
  commandName: "page.create",
  description:
    "Create a new page in the workspace, with a title and a body as `markdown` (GitHub-flavoured Markdown, the " +
    "form to prefer) or as `blocks`; send exactly one. private: true makes a page only you (the person you act " +
    "for) can read. The result names the new page's documentId: read or edit it with the page tools. Where the " +
    "workspace holds agent writes for approval, the page is created only when a person approves it. Call with " +
    "dryRun: true first to see the page that would be created. " +
    PAGE_CONTENT_IS_DATA,
  args: z
    .strictObject({
      title: PageTitleSchema,
      markdown: MarkdownBodySchema.optional().describe(
        "The body as GitHub-flavoured Markdown (headings, lists with nesting, [ ]/[x] todos, quotes, fenced code, " +
          "---, > [!NOTE] callouts, **bold**, _italic_, ~~strike~~, `code`, [links](https://…)). Give blocks or " +
          "markdown, not both.",
      ),
      blocks: pageBodyBlocksSchema("blocks")
        .optional()
        .describe(
          "Blocks: {id?, type, text, marks?, indent? (list items 0-3), level? (heading 1-3), checked? (todo), " +
            "language? (code)}. Give blocks or markdown, not both.",
        ),
      private: z
        .boolean()
        .default(false)
        .describe("True: a private page, readable only by the person the call acts for (and people they grant)."),
    })
    .check(
      z.superRefine((args, ctx) => {
        if ((args.blocks === undefined) === (args.markdown === undefined))
          ctx.addIssue({ code: "custom", path: ["blocks"], message: "give exactly one of blocks or markdown" });
      }),
    ),
  result: z.object({
    commandName: z.literal("page.create"),
    documentId: z.string().describe("The new page's id: pass it as documentId to the page tools."),
    revision: z.number().int(),
    decision: AppliedDecisionSchema.optional(),
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
});
