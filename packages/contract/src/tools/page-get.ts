import { z } from "zod";
import { BlockIdSchema, BlockSchema } from "../blocks";
import { LIMITS } from "../limits";
import { PageOptionsSchema } from "../options";
import { ContentNoticeSchema, defineTool, PAGE_CONTENT_IS_DATA } from "./shared";

/** One heading of the outline: where it is and how many blocks lie under it before the next heading. */
export const OutlineEntrySchema = z.object({
  id: z.string(),
  index: z.number().int().describe("Position of the heading on the page (0-based)."),
  level: z.number().int(),
  text: z.string().describe("The heading text, cut to 120 characters."),
  blocksUnder: z.number().int().describe("Blocks after this heading up to the next heading (of any level)."),
});

/** A block whose text contains the search term, with a little of the text around the match. */
export const SearchMatchSchema = z.object({
  id: z.string(),
  index: z.number().int(),
  type: z.string(),
  snippet: z.string().describe("The text around the first match (at most about 160 characters)."),
});

/** Where this answer sits in the page and how to read on. */
export const WindowSchema = z.object({
  start: z.number().int().describe("Index of the first block (or heading, or match) in this answer."),
  count: z.number().int().describe("How many entries this answer holds."),
  totalBlocks: z.number().int().describe("Blocks on the whole page."),
  nextCursor: z
    .string()
    .nullable()
    .describe("Pass as `cursor` (with the same outline/search) to read on; null when this answer reaches the end."),
});

export const pageGetTool = defineTool({
  name: "mnote.page.get",
  kind: "read",
  capability: "page.read",
  commandName: null,
  description:
    "Read an mnote page: title, revision, a short body summary, page options and blocks (format: 'markdown' " +
    "gives them as Markdown, the form to prefer before writing Markdown). Any page answers within " +
    `about ${LIMITS.readBudget / 1000} KB: a long page comes in windows, each with nextCursor to read on. ` +
    "To work on a long page: outline: true lists the headings with their block ids and how many blocks lie under each; " +
    "search: 'words' finds the blocks containing them; startBlockId (and limit) reads a window from a block. Edit with " +
    "mnote_page_edit by block id, passing the revision you read as baseRevision. " +
    PAGE_CONTENT_IS_DATA,
  args: z.strictObject({
    includeBody: z.boolean().default(true).describe("Include bodySummary."),
    includeOptions: z.boolean().default(true).describe("Include pageOptions."),
    includeBlocks: z.boolean().default(true).describe("Include blocks (one window of them; see nextCursor)."),
    outline: z.boolean().default(false).describe("Answer the headings (outline) instead of blocks."),
    search: z
      .string()
      .trim()
      .min(1, "search must not be empty")
      .max(LIMITS.searchLength, `search is longer than ${LIMITS.searchLength} characters`)
      .optional()
      .describe("Answer the blocks whose text contains this (case-insensitive) instead of blocks."),
    startBlockId: BlockIdSchema.optional().describe("Start the window at this block."),
    limit: z
      .number()
      .int()
      .min(1)
      .max(LIMITS.readWindowBlocks)
      .optional()
      .describe(
        `At most this many blocks (or headings, or matches); the ${LIMITS.readBudget / 1000} KB budget may stop earlier.`,
      ),
    cursor: z.string().max(400).optional().describe("nextCursor from the previous answer, to read on."),
    format: z
      .enum(["blocks", "markdown"])
      .default("blocks")
      .describe(
        "blocks (default): the window as JSON blocks. markdown: the same window as GitHub-flavoured Markdown in " +
          "`markdown`, each block followed by (or, for code and dividers, preceded by) its id as " +
          "`<!-- mnote:id=… -->`; keep those comments when you send Markdown back.",
      ),
  }),
  result: z.object({
    documentId: z.string(),
    workspaceId: z.string(),
    title: z.string(),
    revision: z.number().int().describe("The revision this answer was read at: pass it as baseRevision to edit."),
    contentNotice: ContentNoticeSchema,
    bodySummary: z.string().optional(),
    pageOptions: PageOptionsSchema.optional(),
    blocks: z.array(BlockSchema).optional(),
    markdown: z
      .string()
      .optional()
      .describe("With format: 'markdown', the window's blocks as Markdown (instead of blocks)."),
    outline: z.array(OutlineEntrySchema).optional(),
    matches: z.array(SearchMatchSchema).optional(),
    window: WindowSchema.optional(),
  }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
});
