/** Size limits. Anything past them is `mnote_tool_invalid_input`, never a partial write. */
export const LIMITS = {
  idLength: 128,
  traceFieldLength: 256,
  idempotencyKeyLength: 200,
  titleLength: 200,
  blockTextLength: 20_000,
  blocksPerSave: 20_000,
  /** Operations in one mnote.page.edit call. */
  editOperations: 500,
  /**
   * The destructive-change guard of a page.save replace (decision 0015): without allowDeletes it may
   * delete up to `replaceDeleteFree` blocks freely; past that, no more than `replaceDeleteShare` of the
   * page's blocks and no more than `replaceDeleteCount` blocks.
   */
  replaceDeleteFree: 3,
  replaceDeleteShare: 0.5,
  replaceDeleteCount: 50,
  /** The default size of a page.get answer (characters of JSON), so any page fits in a model's context. */
  readBudget: 32_000,
  /** Blocks one page.get window may hold, whatever the budget. */
  readWindowBlocks: 500,
  /** Characters of a search term in page.get. */
  searchLength: 200,
  /** Sum of all block texts in one save. */
  saveTextTotal: 2_000_000,
  summaryLength: 20_000,
  aiNoteLength: 50_000,
  codeLanguageLength: 40,
  /** Inline formatting spans on one block, and the length of one link target. */
  marksPerBlock: 1_000,
  hrefLength: 2_000,
  /** One Markdown body a model sends (page.save, page.edit): characters, before it is parsed into blocks. */
  markdownLength: 2_000_000,
  /** One comment's Markdown body (mnote.comment.create): a remark, not a document. */
  commentLength: 10_000,
  /** Blocks one comment's Markdown may make. */
  commentBlocks: 50,
  /** The quoted span a new thread may anchor to, within its block's text. */
  commentQuoteLength: 1_000,
  /** Comments one thread holds (its first and its replies): a thread is a conversation, not a log. */
  commentsPerThread: 200,
  /** Threads one mnote.comment.list answer holds at most (the read budget may stop earlier). */
  commentThreadsPerWindow: 50,
  /** A workspace search's query (mnote.workspace.search): a few words, not a document. */
  searchQueryLength: 200,
  /** Hits one search window holds at most, and when the caller names no limit. */
  searchHitsPerWindow: 50,
  searchHitsByDefault: 10,
  /** Pages one search may be limited to (`documentIds`). */
  searchDocumentIds: 100,
  /** The characters of text around a hit's match in its snippet. */
  searchSnippetLength: 160,
  /**
   * A person's reason for rejecting a proposal or one of its changes: what the agent reads back on its retry. The
   * panel's reason box counts down from it and refuses past it before sending (issue 36).
   */
  rejectionReasonLength: 500,
  /** A question asked of Hermes from the panel: a question, not a document (Hermes reads the page with its tools). */
  askQuestionChars: 4_000,
  /** One HTTP request's body, on every door that reads one (bridge HTTP and MCP, panel API). */
  requestBodyBytes: 4 * 1024 * 1024,
  /** The most of a caller's own text (an unknown key, a path segment) an error message quotes. */
  echoLength: 200,
} as const;

/** A caller's text as an error message may quote it: at most `max` characters, cut with an ellipsis. */
export function clipEcho(text: string, max: number = LIMITS.echoLength): string {
  return text.length <= max ? text : `${text.slice(0, max)}…`;
}
