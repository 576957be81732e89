import { router } from "../trpc";
import {
  artifactsList,
  auditList,
  commandGet,
  pageActivity,
  pagesList,
  pageView,
  sessionMe,
  workspaceSetApproval,
} from "../procedures/panel/page-procedures";
import { askCheck, askStart } from "../procedures/panel/ask-start";
import { pageRevert } from "../procedures/panel/page-revert";
import {
  proposalsApplySelection,
  proposalsApprove,
  proposalsGet,
  proposalsList,
  proposalsReject,
  proposalsRerun,
} from "../procedures/panel/proposal-procedures";

/** The panel's procedures: never in an agent's tool list, open only to a person's token. */
export const panelRouter = router({
  session: router({ me: sessionMe }),
  pages: router({ list: pagesList }),
  page: router({ view: pageView, activity: pageActivity, revert: pageRevert }),
  proposals: router({
    list: proposalsList,
    get: proposalsGet,
    approve: proposalsApprove,
    reject: proposalsReject,
    applySelection: proposalsApplySelection,
    rerun: proposalsRerun,
  }),
  audit: router({ list: auditList }),
  command: router({ get: commandGet }),
  artifacts: router({ list: artifactsList }),
  workspace: router({ setApproval: workspaceSetApproval }),
  ask: router({ start: askStart, check: askCheck }),
});
