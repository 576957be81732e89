import { z } from "zod";
import { BlockIdSchema, BlockInputSchema, BLOCK_TYPES, indentProblems, MarkSchema, MAX_INDENT } from "../blocks";
import { LIMITS } from "../limits";
import {
  AppliedDecisionSchema,
  BaseRevisionSchema,
  defineTool,
  MarkdownBodySchema,
  PAGE_CONTENT_IS_DATA,
} from "./shared";

/** Where an insert or a move puts blocks: after a block on the page, or at the start or end. */
const anchor = {
  after: BlockIdSchema.optional().describe("Put the blocks right after this block id. Give `after` or `at`, not both."),
  at: z
    .enum(["start", "end"])
    .optional()
    .describe("Put the blocks at the start or the end of the page instead of after a block."),
};

const blockId = BlockIdSchema.describe("The id of a block on the page (from mnote_page_get).");

export const EditOperationSchema = z.discriminatedUnion("op", [
  z.strictObject({
    op: z.literal("replace"),
    blockId,
    text: z
      .string()
      .max(LIMITS.blockTextLength, `block text is longer than ${LIMITS.blockTextLength} characters`)
      .optional()
      .describe("The block's new text; omit to keep it."),
    type: z
      .enum(BLOCK_TYPES as [string, ...string[]])
      .optional()
      .describe("The block's new type; omit to keep it."),
    level: z
      .union([z.literal(1), z.literal(2), z.literal(3)])
      .optional()
      .describe("Heading level."),
    checked: z.boolean().optional().describe("Todo state."),
    language: z.string().max(LIMITS.codeLanguageLength).optional().describe("Code language."),
    marks: z
      .array(MarkSchema)
      .max(LIMITS.marksPerBlock)
      .optional()
      .describe(
        "The block's inline formatting [{type, start, end, href?}]; omit to keep it when the text stays, [] to clear. " +
          "New text without marks makes the block plain.",
      ),
    indent: z.number().int().min(0).max(MAX_INDENT).optional().describe("List nesting level 0-3 (list items)."),
    markdown: MarkdownBodySchema.optional().describe(
      "The whole block as one block of Markdown (e.g. '- [ ] **Ship** it'): sets its type, text and formatting. " +
        "Instead of text, type and the attributes.",
    ),
  }),
  z.strictObject({
    op: z.literal("insert"),
    ...anchor,
    blocks: z
      .array(BlockInputSchema)
      .min(1, "an insert needs at least one block")
      .max(LIMITS.blocksPerSave, `an insert has more than ${LIMITS.blocksPerSave} blocks`)
      .superRefine((blocks, ctx) => {
        for (const problem of indentProblems(blocks))
          ctx.addIssue({ code: "custom", path: [problem.index, "indent"], message: problem.message });
      })
      .optional()
      .describe(
        "New blocks, in order: {id?, type, text, marks?, indent?, level?, checked?, language?}. Omit ids: the " +
          "server assigns them. Give blocks or markdown, not both.",
      ),
    markdown: MarkdownBodySchema.optional().describe(
      "The new blocks as GitHub-flavoured Markdown (the form to prefer); give blocks or markdown, not both.",
    ),
  }),
  z.strictObject({
    op: z.literal("delete"),
    blockIds: z.array(blockId).min(1, "a delete needs at least one block id").max(LIMITS.blocksPerSave),
  }),
  z.strictObject({ op: z.literal("move"), blockId, ...anchor }),
]);
export type EditOperation = z.output<typeof EditOperationSchema>;

export const pageEditTool = defineTool({
  name: "mnote.page.edit",
  kind: "write",
  capability: "page.write",
  commandName: "page.body.edit",
  description:
    "Change some blocks of a page by block id, leaving every other block as it is: replace a block's text, type or " +
    "attributes or formatting; insert blocks after a block (or at the start or end); delete blocks; move a block after another. " +
    "The operations apply in order and all together or not at all. The loop: mnote_page_get with outline: true to " +
    "find your way, read a window around the blocks (startBlockId), then edit with baseRevision set to the revision " +
    "you read; call with dryRun: true first when the user should review. An unknown block id fails naming the " +
    "operation; a stale baseRevision fails with mnote_tool_conflict (read again). Write new or replaced blocks as " +
    "`markdown` (read with format: 'markdown' to see the page so); `blocks`/`text` are the block form. " +
    PAGE_CONTENT_IS_DATA,
  args: z.strictObject({
    operations: z
      .array(EditOperationSchema)
      .min(1, "operations must not be empty")
      .max(LIMITS.editOperations, `more than ${LIMITS.editOperations} operations in one edit`)
      .superRefine((operations, ctx) => {
        let text = 0;
        operations.forEach((operation, index) => {
          if (
            (operation.op === "insert" || operation.op === "move") &&
            (operation.after === undefined) === (operation.at === undefined)
          ) {
            ctx.addIssue({
              code: "custom",
              path: [index],
              message: `operation ${index} (${operation.op}) needs exactly one of after or at`,
            });
          }
          if (operation.op === "replace") {
            text += (operation.text?.length ?? 0) + (operation.markdown?.length ?? 0);
            const others = ["text", "type", "level", "checked", "language", "marks", "indent"] as const;
            if (operation.markdown !== undefined && others.some((key) => operation[key] !== undefined)) {
              ctx.addIssue({
                code: "custom",
                path: [index, "markdown"],
                message: `operation ${index} (replace) gives markdown and ${others.filter((key) => operation[key] !== undefined).join(", ")}: give one form`,
              });
            }
            if (Object.keys(operation).length === 2) {
              ctx.addIssue({
                code: "custom",
                path: [index],
                message: `operation ${index} (replace) changes nothing: give text, type or an attribute`,
              });
            }
          }
          if (operation.op === "insert") {
            if ((operation.blocks === undefined) === (operation.markdown === undefined))
              ctx.addIssue({
                code: "custom",
                path: [index, "blocks"],
                message: `operation ${index} (insert) needs exactly one of blocks or markdown`,
              });
            for (const block of operation.blocks ?? []) text += block.text?.length ?? 0;
            text += operation.markdown?.length ?? 0;
          }
        });
        if (text > LIMITS.saveTextTotal)
          ctx.addIssue({ code: "custom", message: `more than ${LIMITS.saveTextTotal} characters of text in one edit` });
      })
      .describe("Edits in order; each names blocks by id. Later operations see the page as earlier ones left it."),
    baseRevision: BaseRevisionSchema,
  }),
  result: z.object({
    commandName: z.literal("page.body.edit"),
    revision: z.number().int(),
    insertedBlockIds: z
      .array(z.string())
      .describe("The ids of the inserted blocks, in order, so later edits can name them."),
    decision: AppliedDecisionSchema.optional(),
  }),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
});
