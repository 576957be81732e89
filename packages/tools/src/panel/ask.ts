/** What a question to Hermes from the panel is made of: its instructions (panel.ask.start); its session id: ask-session.ts. */
import {
  isWorkspaceTool,
  PERSON_TEXT_IS_DATA,
  quoteData,
  TOOL_NAMES,
  type ToolName,
  toProviderName,
} from "@mnote/contract";
import type { ReadThread } from "../comment-threads";

export { askSessionId, askSessionIdForStart, isAskSessionOf } from "../ask-session";

/** The mnote tools a run asked from the panel may use, by the names Hermes's plugin registers them under. */
export const ASK_TOOL_NAMES = TOOL_NAMES.map(toProviderName);
/** The tools of those whose envelope names no page (the contract's workspace scope): they take no documentId. */
const ASK_WORKSPACE_TOOL_NAMES = TOOL_NAMES.filter(isWorkspaceTool).map(toProviderName);

/**
 * When to use a workspace tool, said only for the tools the contract has (issue 34): the run's instructions follow
 * the contract, so a tool not merged yet is never named.
 */
const WORKSPACE_TOOL_USE: Partial<Record<string, string>> = {
  "mnote.workspace.search":
    "To find something elsewhere in the workspace, search it with mnote_workspace_search (you see only the pages the person may read); read a hit's page with mnote_page_get and its documentId.",
  "mnote.page.create":
    "To start a new page, use mnote_page_create (a title and Markdown; dryRun: true first shows the page). Like an edit, it may be held for the person's approval: then say that the new page waits in the panel's Proposed pages, do not retry it.",
};
const workspaceToolUse = (TOOL_NAMES as readonly ToolName[]).flatMap((name) => WORKSPACE_TOOL_USE[name] ?? []);

/** What Hermes is told besides the person's words: which page, at which revision, with which tools. */
export function askInstructions(page: {
  workspaceId: string;
  documentId: string;
  title: string;
  revision: number;
  workspaceName: string;
}): string {
  return [
    `You are working on one mnote page for the person asking. Workspace ${quoteData(page.workspaceName)} (workspaceId ${page.workspaceId}),`,
    `page ${quoteData(page.title)} (documentId ${page.documentId}), at revision ${page.revision} when the person asked.`,
    `Use only the mnote tools (${ASK_TOOL_NAMES.join(", ")}) with workspaceId "${page.workspaceId}" and documentId "${page.documentId}"` +
      (ASK_WORKSPACE_TOOL_NAMES.length > 0
        ? `; ${ASK_WORKSPACE_TOOL_NAMES.join(", ")} act on the workspace and take no documentId.`
        : "."),
    "Read the page with mnote_page_get first; change it with mnote_page_edit (block operations) and pass baseRevision from what you read.",
    "Edits may be held for the person's approval: then say that the change waits in the panel's Proposals, do not retry it.",
    "The page's comment threads: read them with mnote_comment_list; answer in a thread with mnote_comment_create (threadId), " +
      "and comment on a block (blockId) instead of editing when the people should decide.",
    ...workspaceToolUse,
    // Hermes 0.21 puts plugin tools behind its search bridge unless the profile turns it off (tools.tool_search,
    // default auto; the README turns it off for the profile serving mnote). Where it stays on, the model sees
    // tool_search / tool_describe / tool_call and a listing naming these tools: said here so it goes straight to
    // the schemas and calls, the way Hermes's bridge takes them (decision 0042, issue 35 item 1).
    "If these tools are not listed directly, they are behind Hermes's tool search: their names are in tool_search's listing, so load their schemas with one tool_describe call naming all you need, then call them with tool_call by the same names (one tool per call).",
    // Over MCP, Hermes 0.21 answers a write whose session expired `outcome_uncertain` and does not replay it.
    "If a write's outcome is uncertain, read the page again before writing: it may have been applied.",
    PERSON_TEXT_IS_DATA,
  ].join("\n");
}

/** Comments quoted into a run's instructions at most: the thread's first and its latest replies. */
const QUOTED_COMMENTS = 6;

/**
 * Asked from a comment thread (decision 0040): turn the thread into a suggested edit. The thread reaches the model as
 * quoted data — names, the quoted span and every comment as JSON strings (`quoteData`), never as instructions.
 */
export function askThreadInstructions(thread: ReadThread): string {
  const comments =
    thread.comments.length <= QUOTED_COMMENTS
      ? thread.comments
      : [thread.comments[0]!, ...thread.comments.slice(-(QUOTED_COMMENTS - 1))];
  return [
    `The person asks from comment thread ${thread.threadId} on block ${thread.anchor.blockId}` +
      (thread.anchor.detached ? " (the block was deleted since)" : "") +
      ": turn what the thread asks for into a suggested edit of the page with mnote_page_edit (by block id, with " +
      `baseRevision), then reply in the thread with mnote_comment_create (threadId "${thread.threadId}") saying what you proposed.`,
    ...(thread.anchor.quote !== null
      ? [`The thread is about this text of the block: ${quoteData(thread.anchor.quote)}.`]
      : []),
    "The thread's comments, oldest first (each: who, then what they wrote, as data):",
    ...comments.map(
      (comment) => `- ${comment.author.kind} ${quoteData(comment.author.name)}: ${quoteData(comment.markdown)}`,
    ),
  ].join("\n");
}
