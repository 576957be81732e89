import type { ToolName } from "@mnote/contract";
import { router } from "../trpc";
import { artifactCreateAiNote } from "../procedures/artifact-create-ai-note";
import { artifactCreateSummary } from "../procedures/artifact-create-summary";
import { commentCreate } from "../procedures/comment-create";
import { commentList } from "../procedures/comment-list";
import { pageCreate } from "../procedures/page-create";
import { pageEdit } from "../procedures/page-edit";
import { pageGet } from "../procedures/page-get";
import { pageSave } from "../procedures/page-save";
import { pageUpdateOptions } from "../procedures/page-update-options";
import { pageUpdateTitle } from "../procedures/page-update-title";
import { workspaceSearch } from "../procedures/workspace-search";

/** Each agent tool's procedure, at exactly the contract's path: `mnote.page.get` is `page.get` here. */
const procedures = {
  page: {
    get: pageGet,
    save: pageSave,
    edit: pageEdit,
    update_title: pageUpdateTitle,
    update_options: pageUpdateOptions,
    create: pageCreate,
  },
  artifact: {
    create_summary: artifactCreateSummary,
    create_ai_note: artifactCreateAiNote,
  },
  comment: {
    create: commentCreate,
    list: commentList,
  },
  workspace: {
    search: workspaceSearch,
  },
};

type RoutedTools = {
  [Group in keyof typeof procedures]: `mnote.${Group}.${keyof (typeof procedures)[Group] & string}`;
}[keyof typeof procedures];
/**
 * A tool's tRPC path is its contract name (`mnote.page.get`), so every contract tool is routed, and nothing else:
 * a tool added to the contract without a procedure here (or a misspelled path) does not compile.
 */
const everyToolRouted: [RoutedTools, ToolName] extends [ToolName, RoutedTools] ? true : never = true;
void everyToolRouted;

/** The agent tools. */
export const mnoteRouter = router({
  page: router(procedures.page),
  artifact: router(procedures.artifact),
  comment: router(procedures.comment),
  workspace: router(procedures.workspace),
});
