import { artifactCreateAiNoteTool } from "./artifact-create-ai-note";
import { artifactCreateSummaryTool } from "./artifact-create-summary";
import { commentCreateTool } from "./comment-create";
import { commentListTool } from "./comment-list";
import { pageCreateTool } from "./page-create";
import { pageEditTool } from "./page-edit";
import { pageGetTool } from "./page-get";
import { pageSaveTool } from "./page-save";
import { pageUpdateOptionsTool } from "./page-update-options";
import { pageUpdateTitleTool } from "./page-update-title";
import { workspaceSearchTool } from "./workspace-search";
import { scopeOf } from "./shared";

export * from "./shared";
export { EditOperationSchema, type EditOperation } from "./page-edit";
export { OutlineEntrySchema, SearchMatchSchema, WindowSchema } from "./page-get";
export {
  CommentAuthorSchema,
  CommentSchema,
  CommentThreadSchema,
  type CommentAuthor,
  type CommentThread,
} from "./comment-list";
export { SEARCH_MATCH_MARKS, SearchHitSchema, type SearchHit } from "./workspace-search";
export {
  workspaceSearchTool,
  artifactCreateAiNoteTool,
  artifactCreateSummaryTool,
  commentCreateTool,
  commentListTool,
  pageCreateTool,
  pageEditTool,
  pageGetTool,
  pageSaveTool,
  pageUpdateOptionsTool,
  pageUpdateTitleTool,
};

/** The tools, in the order agents see them. */
export const TOOLS = {
  "mnote.page.get": pageGetTool,
  "mnote.page.save": pageSaveTool,
  "mnote.page.edit": pageEditTool,
  "mnote.page.update_title": pageUpdateTitleTool,
  "mnote.page.update_options": pageUpdateOptionsTool,
  "mnote.page.create": pageCreateTool,
  "mnote.artifact.create_summary": artifactCreateSummaryTool,
  "mnote.artifact.create_ai_note": artifactCreateAiNoteTool,
  "mnote.comment.create": commentCreateTool,
  "mnote.comment.list": commentListTool,
  "mnote.workspace.search": workspaceSearchTool,
} as const;

export type Tools = typeof TOOLS;
export type ToolName = keyof Tools;
export const TOOL_NAMES = Object.keys(TOOLS) as ToolName[];
export type WriteToolName = { [K in ToolName]: Tools[K]["kind"] extends "write" ? K : never }[ToolName];

export type WorkspaceToolName = {
  [K in ToolName]: NonNullable<Tools[K]["scope"]> extends "workspace" ? K : never;
}[ToolName];

/** Whether `name` is one of the contract's workspace tools (its envelope names no page). */
export function isWorkspaceTool(name: string): name is WorkspaceToolName {
  return (TOOL_NAMES as string[]).includes(name) && scopeOf(TOOLS[name as ToolName]) === "workspace";
}
/** The workspace tools in the order agents see them. */
export const WORKSPACE_TOOL_NAMES: readonly WorkspaceToolName[] = TOOL_NAMES.filter(isWorkspaceTool);

/** Whether `name` is one of the contract's write tools (by its definition's `kind`). */
export function isWriteTool(name: string): name is WriteToolName {
  return (TOOL_NAMES as string[]).includes(name) && TOOLS[name as ToolName].kind === "write";
}
/** The write tools in the order agents see them: the runtime list of `WriteToolName`. */
export const WRITE_TOOL_NAMES: readonly WriteToolName[] = TOOL_NAMES.filter(isWriteTool);
