import { router } from "../trpc";
import { artifactCreateAiNote } from "../procedures/artifact-create-ai-note";
import { artifactCreateSummary } from "../procedures/artifact-create-summary";
import { pageEdit } from "../procedures/page-edit";
import { pageGet } from "../procedures/page-get";
import { pageSave } from "../procedures/page-save";
import { pageUpdateOptions } from "../procedures/page-update-options";
import { pageUpdateTitle } from "../procedures/page-update-title";

/** The seven agent tools, at exactly the contract's paths: mnote.page.get, … */
export const mnoteRouter = router({
  page: router({
    get: pageGet,
    save: pageSave,
    edit: pageEdit,
    update_title: pageUpdateTitle,
    update_options: pageUpdateOptions,
  }),
  artifact: router({
    create_summary: artifactCreateSummary,
    create_ai_note: artifactCreateAiNote,
  }),
});
