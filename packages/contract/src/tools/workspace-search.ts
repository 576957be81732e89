import { z } from "zod";
import { IdSchema } from "../envelope";
import { LIMITS } from "../limits";
import { storable } from "../text";
import { ContentNoticeSchema, defineTool, PAGE_CONTENT_IS_DATA } from "./shared";

/** Where a snippet marks a match: the matched word between these, so a model can tell it from the page's text. */
export const SEARCH_MATCH_MARKS = ["«", "»"] as const;

export const SearchHitSchema = z.object({
  documentId: z.string().describe("The page: pass it to mnote.page.get (search: the words) to read around the hit."),
  title: z.string().describe("The page's title."),
  blockId: z.string().nullable().describe("The block that matched; null when the page's title matched."),
  snippet: z
    .string()
    .describe(
      `The matching text (the title, or the block's text around the match), each matched word marked ` +
        `${SEARCH_MATCH_MARKS[0]}like this${SEARCH_MATCH_MARKS[1]}.`,
    ),
});
export type SearchHit = z.infer<typeof SearchHitSchema>;

export const workspaceSearchTool = defineTool({
  name: "mnote.workspace.search",
  kind: "read",
  capability: "page.read",
  scope: "workspace",
  commandName: null,
  description:
    "Search the titles and text of the pages you may read in the workspace, e.g. to find where something was " +
    "decided before reading or editing a page. Every word of the query must be in a hit (Chinese and Japanese are " +
    "split into words: 计划 finds 项目计划). Hits are not ranked by relevance: pages whose title matches come " +
    "first, then blocks in the order they were written (oldest first); each hit names its page and block, with a " +
    "snippet; add words to narrow a common one. Takes no documentId (it searches the " +
    "workspace; documentIds limits it to some pages). Long answers come in windows: pass nextCursor as cursor. " +
    PAGE_CONTENT_IS_DATA,
  args: z.strictObject({
    query: storable(z.string())
      .min(1, "query needs at least one word")
      .max(LIMITS.searchQueryLength, `query is longer than ${LIMITS.searchQueryLength} characters`)
      .describe("The words to find (every one must be in a hit; case does not matter)."),
    limit: z
      .number()
      .int()
      .min(1)
      .max(LIMITS.searchHitsPerWindow)
      .optional()
      .describe(`Hits in this window (default ${LIMITS.searchHitsByDefault}, at most ${LIMITS.searchHitsPerWindow}).`),
    cursor: z.string().max(400).optional().describe("nextCursor from the previous answer (same query), to read on."),
    documentIds: z
      .array(IdSchema)
      .min(1)
      .max(LIMITS.searchDocumentIds)
      .optional()
      .describe("Only these pages (ids from earlier answers)."),
  }),
  result: z.object({
    workspaceId: z.string(),
    contentNotice: ContentNoticeSchema,
    hits: z.array(SearchHitSchema).describe("Title hits first, then block hits by page and position."),
    nextCursor: z
      .string()
      .nullable()
      .describe("Pass as cursor (with the same query and documentIds) to read on; null at the end."),
  }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
});
