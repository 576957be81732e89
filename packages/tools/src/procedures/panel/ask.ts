/** What a question to Hermes from the panel is made of: its session id and its instructions (panel.ask.start). */
import { randomUUID } from "node:crypto";

/** The mnote tools a run asked from the panel may use, by the names Hermes's plugin registers them under. */
export const ASK_TOOL_NAMES = [
  "mnote_page_get",
  "mnote_page_edit",
  "mnote_page_save",
  "mnote_page_update_title",
  "mnote_page_update_options",
  "mnote_artifact_create_summary",
  "mnote_artifact_create_ai_note",
] as const;

/**
 * The session id of one conversation about one page, in the seed's pattern
 * `mnote_<documentId>_<traceId>`: every tool call of the conversation carries it into the
 * audit trail, which is how the panel finds them again (mnote keeps no chat text).
 */
export function askSessionId(documentId: string, traceId: string = randomUUID().replaceAll("-", "")): string {
  return `mnote_${documentId}_${traceId}`;
}

/** Does this session id name a conversation about this page (and nothing else)? */
export function isAskSessionOf(sessionId: string, documentId: string): boolean {
  const prefix = `mnote_${documentId}_`;
  return sessionId.startsWith(prefix) && /^[0-9a-f]{32}$/.test(sessionId.slice(prefix.length));
}

/** What Hermes is told besides the person's words: which page, at which revision, with which tools. */
export function askInstructions(page: {
  workspaceId: string;
  documentId: string;
  title: string;
  revision: number;
  workspaceName: string;
}): string {
  return [
    `You are working on one mnote page for the person asking. Workspace "${page.workspaceName}" (workspaceId ${page.workspaceId}),`,
    `page "${page.title}" (documentId ${page.documentId}), at revision ${page.revision} when the person asked.`,
    `Use only the mnote tools (${ASK_TOOL_NAMES.join(", ")}) with workspaceId "${page.workspaceId}" and documentId "${page.documentId}".`,
    "Read the page with mnote_page_get first; change it with mnote_page_edit (block operations) and pass baseRevision from what you read.",
    "Edits may be held for the person's approval: then say that the change waits in the panel's Proposals, do not retry it.",
  ].join("\n");
}
