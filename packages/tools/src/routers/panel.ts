import { router } from "../trpc";
import { agentsCreate } from "../procedures/panel/agents-create";
import { agentsList } from "../procedures/panel/agents-list";
import { agentsRevoke } from "../procedures/panel/agents-revoke";
import { artifactsList } from "../procedures/panel/artifacts-list";
import { commentsList } from "../procedures/panel/comments-list";
import { commentsReply } from "../procedures/panel/comments-reply";
import { commentsStart } from "../procedures/panel/comments-start";
import { commentsSetResolved } from "../procedures/panel/comments-set-resolved";
import { invitationsDecide } from "../procedures/panel/invitations-decide";
import { invitationsList } from "../procedures/panel/invitations-list";
import { membersInvite } from "../procedures/panel/members-invite";
import { membersList } from "../procedures/panel/members-list";
import { membersRemove } from "../procedures/panel/members-remove";
import { membersSetRole } from "../procedures/panel/members-set-role";
import { askCheck } from "../procedures/panel/ask-check";
import { askStart } from "../procedures/panel/ask-start";
import { askReplay } from "../procedures/panel/ask-replay";
import { askRecord } from "../procedures/panel/ask-record";
import { askLines } from "../procedures/panel/ask-lines";
import { hermesApprove } from "../procedures/panel/hermes-approve";
import { hermesAsk } from "../procedures/panel/hermes-ask";
import { hermesConnection } from "../procedures/panel/hermes-connection";
import { hermesEvents } from "../procedures/panel/hermes-events";
import { hermesSteer } from "../procedures/panel/hermes-steer";
import { hermesStop } from "../procedures/panel/hermes-stop";
import { auditList } from "../procedures/panel/audit-list";
import { commandGet } from "../procedures/panel/command-get";
import { pageActivity } from "../procedures/panel/page-activity";
import { pageChanges } from "../procedures/panel/page-changes";
import { pageRevert } from "../procedures/panel/page-revert";
import { pageView } from "../procedures/panel/page-view";
import { pagesList } from "../procedures/panel/pages-list";
import { pagesApproveProposed, pagesProposed, pagesRejectProposed } from "../procedures/panel/proposed-pages";
import { proposalsApplyEdited } from "../procedures/panel/proposals-apply-edited";
import { proposalsApplyPart } from "../procedures/panel/proposals-apply-part";
import { proposalsApprove } from "../procedures/panel/proposals-approve";
import { proposalsGet } from "../procedures/panel/proposals-get";
import { proposalsList } from "../procedures/panel/proposals-list";
import { proposalsReject } from "../procedures/panel/proposals-reject";
import { proposalsDecide } from "../procedures/panel/proposals-decide";
import { sessionMe } from "../procedures/panel/session-me";
import { workspacePolicyHistory } from "../procedures/panel/workspace-policy-history";
import { workspaceSetApproval } from "../procedures/panel/workspace-set-approval";

/** The panel's procedures: never in an agent's tool list, open only to a person's token. One procedure per file. */
export const panelRouter = router({
  session: router({ me: sessionMe }),
  pages: router({
    list: pagesList,
    proposed: pagesProposed,
    approveProposed: pagesApproveProposed,
    rejectProposed: pagesRejectProposed,
  }),
  page: router({ view: pageView, activity: pageActivity, changes: pageChanges, revert: pageRevert }),
  proposals: router({
    list: proposalsList,
    get: proposalsGet,
    approve: proposalsApprove,
    reject: proposalsReject,
    applyPart: proposalsApplyPart,
    applyEdited: proposalsApplyEdited,
    decide: proposalsDecide,
  }),
  audit: router({ list: auditList }),
  command: router({ get: commandGet }),
  artifacts: router({ list: artifactsList }),
  comments: router({
    list: commentsList,
    start: commentsStart,
    reply: commentsReply,
    setResolved: commentsSetResolved,
  }),
  workspace: router({ setApproval: workspaceSetApproval, policyHistory: workspacePolicyHistory }),
  ask: router({ start: askStart, replay: askReplay, record: askRecord, check: askCheck, lines: askLines }),
  // Ask Hermes as the browser calls it (decision 0043): each step through the `panel.ask.*` rules above.
  hermes: router({
    connection: hermesConnection,
    ask: hermesAsk,
    events: hermesEvents,
    approve: hermesApprove,
    stop: hermesStop,
    steer: hermesSteer,
  }),
  agents: router({ list: agentsList, create: agentsCreate, revoke: agentsRevoke }),
  members: router({ list: membersList, invite: membersInvite, setRole: membersSetRole, remove: membersRemove }),
  invitations: router({ list: invitationsList, decide: invitationsDecide }),
});
