import type { Block, Capability, Effect, PageOptions, PageOptionsPatch, ToolErrorCode } from "@mnote/contract";
import type { BlockEditOperation } from "./block-edits";

export type Role = "owner" | "editor" | "viewer";
export type PageAccess = "read" | "write";
/** Who holds a token: the person, or an agent acting for the person (approval policy tells them apart). */
export type TokenHolder = "person" | "agent";

export interface UserRecord {
  id: string;
  name: string;
  /** Lower-case; how a sign-in through the identity provider finds the user. Null: token sign-in only. */
  email: string | null;
}
export interface WorkspaceRecord {
  id: string;
  name: string;
  /** When true, page writes from agent tokens wait for a person's approval. */
  approvalRequired: boolean;
  /** With `approvalRequired`, agents' artifacts (summaries, AI notes) wait for a person's approval too. */
  holdArtifacts: boolean;
}
export interface PageRecord {
  id: string;
  workspaceId: string;
  title: string;
  isPrivate: boolean;
  options: PageOptions;
  revision: number;
  /** How many blocks the body has (kept on the page row by every body write). */
  blockCount: number;
  /**
   * When the page was created. With the revision it names one state of the body: ids of pages made by a seed can
   * come back after a database is emptied, and a revision only counts within one page's life (the read cache keys on both).
   */
  createdAt: string;
}
export interface TokenRecord {
  id: string;
  userId: string;
  holder: TokenHolder;
  scopes: Capability[];
  label: string;
  expiresAt: string | null;
  revokedAt: string | null;
  /**
   * The resource an OAuth grant's token is bound to (RFC 8707, decision 0027), as `findTokenByHash` reads it;
   * absent for tokens the CLI or the panel minted, which every agent door accepts.
   */
  resource?: string;
}
/** The facts an access decision needs, read in one go. */
export interface AccessFacts {
  workspace: WorkspaceRecord | null;
  role: Role | null;
  page: PageRecord | null;
  grant: PageAccess | null;
}

/** What the checks in front of one tool call need, asked for in one read. */
export interface CallFactsQuery {
  tokenHash: string;
  workspaceId: string;
  /** Null for a workspace tool's call: the facts then hold no page. */
  documentId: string | null;
  /** The call's idempotency key (writes), looked up for the token's user; `now` excludes expired records. */
  idempotency: { toolName: string; key: string; now: string } | null;
}

export interface CallFacts {
  /** Null when no token has this hash; revoked and expired tokens are returned as they are. */
  token: TokenRecord | null;
  /** The token user's access to the workspace and page (all null without a token). */
  access: AccessFacts;
  /** The token user's unexpired record for the key, if any. */
  idempotency: IdempotencyRecord | null;
}

export interface ArtifactNode {
  id: string;
  workspaceId: string;
  documentId: string;
  kind: "summary" | "ai_note";
  content: string;
  createdBy: string;
  commandId: string;
  createdAt: string;
  updatedAt: string;
}
export interface ArtifactEdge {
  id: string;
  workspaceId: string;
  fromDocumentId: string;
  toNodeId: string;
  kind: "reference";
  createdAt: string;
}

/** Where a new comment thread sits: a block, and optionally a span of its text. */
export interface CommentAnchor {
  blockId: string;
  quote: string | null;
}

/** Who wrote a comment or resolved a thread: the token's user, and whether an agent held the token. */
export interface CommentAuthorRecord {
  userId: string;
  holder: TokenHolder;
  tokenId: string | null;
}

export interface CommentRecord {
  id: string;
  threadId: string;
  author: CommentAuthorRecord;
  body: Block[];
  commandId: string;
  createdAt: string;
}

export interface CommentThreadRecord {
  id: string;
  workspaceId: string;
  documentId: string;
  blockId: string;
  quote: string | null;
  /** The block is no longer on the page: the thread stays readable without its place. */
  detached: boolean;
  resolvedAt: string | null;
  resolvedBy: CommentAuthorRecord | null;
  createdAt: string;
  /** The last comment, resolve or reopen. */
  updatedAt: string;
  comments: CommentRecord[];
}

/** Which of a page's threads to read: oldest first, from after a (createdAt, id) position. */
export interface CommentThreadQuery {
  documentId: string;
  includeResolved: boolean;
  /** Only threads whose last activity is at or after this time. */
  since?: string;
  after?: { createdAt: string; id: string };
  /** Only this thread (when it is on the page). */
  threadId?: string;
  limit: number;
}

/** A kernel command: the only way business data changes. */
export type KernelCommand =
  | { name: "page.body.save"; mode: "replace" | "append"; blocks: Block[] }
  | { name: "page.body.edit"; operations: BlockEditOperation[] }
  | { name: "page.head.updateTitle"; title: string }
  | { name: "page.layout.updateOptions"; options: PageOptionsPatch }
  | { name: "artifact.summary.upsert"; summary: string }
  | { name: "artifact.aiNote.create"; content: string }
  /**
   * A comment (decision 0040): a new thread anchored to a block (and a span of its text), or a reply in a thread.
   * The body is stored as blocks, like a page; the page itself does not change.
   */
  | { name: "comment.create"; anchor: CommentAnchor | { threadId: string }; body: Block[] }
  /**
   * A new page (issue 34, decision 0046) at the call's `documentId`, which the router derives from the key: the
   * write inserts the page row and its body in one transaction. A private page is granted to `ownerId` (the person
   * whose agent, or who, proposed it). Its revert removes the page again while nothing else was written to it.
   */
  | { name: "page.create"; title: string; isPrivate: boolean; ownerId: string; blocks: Block[] }
  /** A person resolves or reopens a thread (the panel). */
  | { name: "comment.thread.setResolved"; threadId: string; resolved: boolean }
  /**
   * Takes back one command's changes (decision 0030): exactly the operations, title and options the revert's
   * merge planned on the page as it is now. A command recorded before carries none of them and restores the
   * whole page as it was before the target (kept for replays of old records).
   */
  | {
      name: "page.revert";
      targetCommandId: string;
      operations?: BlockEditOperation[];
      title?: string;
      options?: PageOptionsPatch;
      /** The target is a `page.create`: remove the page it made (refused once anything else was written to it). */
      removePage?: boolean;
    };

export type CommandName = KernelCommand["name"];

/** Who asked, from which run: stored with the command and its audit record. */
export interface CallIdentity {
  toolName: string;
  workspaceId: string;
  documentId: string;
  actorId: string;
  tokenId: string | null;
  holder: TokenHolder | null;
  sessionId: string | null;
  runId: string | null;
  toolCallId: string | null;
  traceId: string | null;
  /**
   * The person who asked, when the call belongs to a conversation started from the panel (decision 0021):
   * the token's agent acted for them, with no more rights than theirs.
   */
  askedBy?: string | null;
}

export interface ExecuteRequest {
  identity: CallIdentity;
  command: KernelCommand;
  /** Omit to write against whatever revision is current. */
  baseRevision?: number;
  idempotency: { key: string; fingerprint: string; expiresAt: string };
  /**
   * Recorded with the write audit record (e.g. the args the panel may show). A function is called inside the write's
   * transaction with what the command read there (decision 0049): a plain edit's trail names the blocks it changed
   * as the edit found them, without reading them once more before the transaction. It must not throw.
   */
  auditDetail?: Record<string, unknown> | ((applied: AppliedFacts) => Record<string, unknown>);
  /**
   * The write is a person's decision on a pending proposal (decisions 0016 and 0023): in the same
   * transaction the proposal (and pending repeats of its edit) becomes applied — in full, in part (`part`: the
   * kept changes) or with the person's edits (`edited`) — and records who decided. A proposal no longer pending
   * rolls the write back (`rejected`: decided meanwhile), so of two people deciding at once one wins.
   */
  settles?: ProposalSettlement;
}

/** What a write's command read in its transaction that its audit detail may describe. */
export interface AppliedFacts {
  /** The blocks a `page.body.edit`'s operations name, as the edit found them (empty for other commands). */
  namedBlocks: readonly Block[];
}

export interface ProposalSettlement {
  proposalId: number;
  part?: AppliedPart;
  edited?: boolean;
  /**
   * Decided change by change (decision 0030): the changes this step decides. The proposal stays pending until
   * every one of its `total` changes is decided; deciding a change decided meanwhile rolls the write back.
   */
  changes?: ChangeSettlement;
}

/** Which changes of a proposal one step decides, of how many it has. */
export interface ChangeSettlement {
  decided: StoredChangeDecision[];
  total: number;
}

/** A person's decision on one change of a proposal (by its index in the preview's changes). */
export interface StoredChangeDecision {
  index: number;
  state: "applied" | "applied_with_edits" | "rejected";
  /** Rejected: why (≤ 500 characters). */
  reason?: string | null;
  /** Applied with edits: the block as the person wrote it. */
  final?: Block | null;
  /** What the change changes (`block <id>`, `title`, `option <key>`): what the agent is told to read again. */
  target?: string;
  /** Rejected over a conflict: the person kept the page's newer version. */
  keptMine?: boolean;
}

/** A change's decision as the proposals index keeps it: who, when, and the write that applied it. */
export interface ChangeStateRecord extends StoredChangeDecision {
  by: string;
  at: string;
  commandId: string | null;
}

/** Which of a proposal's changes a person kept (indices into its preview's changes) out of how many. */
export interface AppliedPart {
  kept: number[];
  total: number;
}

export interface CommandResultFacts {
  commandId: string;
  commandName: CommandName;
  revisionBefore: number;
  revisionAfter: number;
  /** The tool result stored with the idempotency record and replayed verbatim. */
  result: Record<string, unknown>;
}

export type ExecuteOutcome =
  | ({ kind: "applied" } & CommandResultFacts)
  | { kind: "replayed"; commandId: string; result: Record<string, unknown> }
  | { kind: "idempotency_conflict" }
  | { kind: "revision_conflict"; currentRevision: number }
  | { kind: "page_missing" }
  /** An append's block id is already on the page; nothing was written. */
  | { kind: "block_id_taken" }
  /** The command itself cannot apply (e.g. revert of a command on another page). */
  | { kind: "rejected"; message: string };

export interface IdempotencyRecord {
  workspaceId: string;
  actorId: string;
  toolName: string;
  key: string;
  fingerprint: string;
  commandId: string;
  result: Record<string, unknown>;
  createdAt: string;
  expiresAt: string;
}

export type AuditOutcome = "ok" | "replayed" | "proposal" | "held_for_approval" | "rejected" | "failed";

export interface AuditInput {
  identity: CallIdentity;
  effect: Effect;
  outcome: AuditOutcome;
  errorCode?: ToolErrorCode | null;
  commandId?: string | null;
  idempotencyKey?: string | null;
  payloadFingerprint?: string | null;
  baseRevision?: number | null;
  /** Proposals: plan, diff, args. Never chat content. */
  detail?: Record<string, unknown> | null;
  /**
   * Proposals (outcome `proposal` or `held_for_approval`): the few facts the panel's list shows, kept with
   * the proposal's index row so a list never reads the full previews.
   */
  summary?: Record<string, unknown> | null;
  durationMs?: number | null;
}
export interface AuditRecord extends Omit<AuditInput, "identity" | "summary"> {
  id: number;
  at: string;
  identity: CallIdentity;
}

export type ProposalStatus = "pending" | "applied" | "rejected";

/**
 * A dry run or a held agent write as the proposals index holds it (decision 0013): one row per proposal
 * audit record, its state kept by the kernel. A write of the same edit (tool, key, payload fingerprint)
 * on the page applies it; a `rejected` audit record of the same edit rejects it. The full args and
 * preview stay in the audit record `auditId`.
 */
export interface ProposalRecord {
  auditId: number;
  at: string;
  identity: CallIdentity;
  idempotencyKey: string;
  payloadFingerprint: string;
  baseRevision: number | null;
  /** The agent asked for a real write and the approval policy held it. */
  held: boolean;
  status: ProposalStatus;
  /** The command that applied it, when applied. */
  commandId: string | null;
  decidedAt: string | null;
  summary: Record<string, unknown> | null;
  /** Set when a person applied only some of its changes (status `applied`). */
  appliedPart: AppliedPart | null;
  /** The user who applied or rejected it (the writer of the command, or the rejecting person). */
  decidedBy: string | null;
  /** Rejected: the reason the person gave (at most 500 characters), if any. */
  reason: string | null;
  /** Applied with the person's edits to the proposed blocks (the write's audit detail holds both versions). */
  edited: boolean;
  /** The decisions made change by change so far (decision 0030), by change index; empty before any. */
  changeStates: Record<number, ChangeStateRecord>;
}

/** An edit as the proposals index knows it, and who proposed it: what a retry of a held call is looked up by. */
export interface EditQuery {
  documentId: string;
  toolName: string;
  key: string;
  fingerprint: string;
  actorId: string;
}

/** The proposal a retry of a held call answers with, and the applied result when it was applied. */
export interface EditDecision {
  proposal: ProposalRecord;
  /**
   * The newest held proposal under the call's key has another payload (decision 0030): the key names another
   * intended call, so this one is an idempotency conflict and records nothing.
   */
  otherPayload: boolean;
  /** The applied command's result (as its idempotency record stored it); null unless applied. */
  result: Record<string, unknown> | null;
}

/** A person's rejection of a pending proposal: its audit record, and the reason (≤ 500 characters). */
export interface ProposalRejection {
  proposalId: number;
  reason: string | null;
  record: AuditInput;
  /** Only these changes (decision 0030); the proposal stays pending while others are. Omitted: the whole proposal. */
  changes?: ChangeSettlement;
}

/** A page of a workspace with one user's access facts on it, and how many edits wait for a decision there. */
export interface PageOverview {
  facts: AccessFacts;
  /** Pending proposals, counting repeats of one edit (tool, key, payload) once, as the panel lists them. */
  pendingProposals: number;
}

/** Display names for ids the audit log and proposals keep: users by id, tokens (holder, label) by id. */
export interface DisplayNames {
  users: Record<string, string>;
  tokens: Record<string, { holder: TokenHolder; label: string; userId: string }>;
}

export interface ProposalQuery {
  workspaceId: string;
  documentId: string;
  /** Decided (applied or rejected) proposals to list after every pending one; default 50. */
  decidedLimit?: number;
}

export interface CommandRecord {
  id: string;
  name: CommandName;
  identity: CallIdentity;
  payloadFingerprint: string;
  idempotencyKey: string;
  revisionBefore: number;
  revisionAfter: number;
  createdAt: string;
}

export interface AuditQuery {
  documentId?: string;
  workspaceId?: string;
  runId?: string;
  traceId?: string;
  /** One conversation's calls: an agent run started from the panel names its session (mnote_<documentId>_<traceId>). */
  sessionId?: string;
  /** Only records with id greater than this (for live polling). */
  afterId?: number;
  /** Only records of this tool (or operator action, e.g. `admin.workspace.policy`). */
  toolName?: string;
  limit?: number;
}

export interface BlockWindowQuery {
  from: number;
  limit: number;
  only?: { kind: "headings" } | { kind: "search"; text: string };
}

export interface PageState {
  title: string;
  options: PageOptions;
  blocks: Block[];
}

/** A conversation asked from the panel: one person, one page (decision 0021). */
export interface AskSessionRecord {
  sessionId: string;
  userId: string;
  workspaceId: string;
  documentId: string;
  createdAt: string;
}

export interface AskRunStart {
  runId: string;
  sessionId: string;
  userId: string;
  workspaceId: string;
  documentId: string;
  /** The start request's idempotency key: a retried start with it names the same run. */
  startKey?: string | null;
}

export interface AskRunRecord extends Required<AskRunStart> {
  /** `ended` once Hermes said the run is over (or its stream was lost). */
  status: "running" | "ended";
  startedAt: string;
  /** When the instance reading Hermes's stream last wrote (it does at least on every keepalive). */
  pumpedAt: string;
}

/** Whether anyone can follow a run now (ask-records.ts `askRunState`). */
export type AskRunState = "live" | "silent" | "ended" | "gone";

export interface KernelAsk {
  /** Records the conversation as this person's about this page unless recorded already; answers the one that stands. */
  openSession(input: Omit<AskSessionRecord, "createdAt">): Promise<AskSessionRecord>;
  getSession(sessionId: string): Promise<AskSessionRecord | null>;
  recordRun(run: AskRunStart): Promise<void>;
  getRun(runId: string): Promise<AskRunRecord | null>;
  findRunByKey(userId: string, startKey: string): Promise<AskRunRecord | null>;
  /** The conversation's newest run, if any. */
  latestRun(sessionId: string): Promise<AskRunRecord | null>;
  /** Appends lines to the run (one writer per run); `ended` marks it over. Answers the last line's number. */
  appendRunLines(runId: string, lines: readonly string[], ended: boolean): Promise<number>;
  listRunLines(runId: string, after: number, limit: number): Promise<{ seq: number; line: string }[]>;
  runState(runId: string): Promise<AskRunState>;
  /** The run's lines after `after` and its state, in one call: what a reader polls. */
  readRun(
    runId: string,
    after: number,
    limit: number,
  ): Promise<{ lines: { seq: number; line: string }[]; state: AskRunState }>;
  /** Whether the run is still read from Hermes by some panel instance (one run of a conversation at a time). */
  isGoingOn(run: AskRunRecord): boolean;
  /**
   * Removes the lines of runs nobody can follow any more (ended `graceMs` ago, or silent past that) and the
   * records of runs Hermes no longer knows (ask-records.ts `sweepAskRuns`). Answers how many of each went.
   */
  sweepRuns(options?: { graceMs?: number }): Promise<{ lines: number; runs: number }>;
}

/**
 * Who made an operator change (e.g. `operator:olga`). Given, the change and its audit record (tool name
 * `admin.*`, no token, the detail of what changed) are written in one transaction; set-up code and tests leave it out.
 */
export interface OperatorAudit {
  by?: string;
}

/** What the approval policy holds for a person's approval in one workspace. */
export interface WorkspacePolicy {
  /** Agent page writes wait for a person's approval. */
  approvalRequired: boolean;
  /** Agents' artifacts (summaries, AI notes) wait too, while `approvalRequired` is on. */
  holdArtifacts: boolean;
}

/** Who changes a workspace's policy: a user id (the panel) or `operator:<login>` (the CLI), and the door. */
export interface PolicyActor {
  by: string;
  via?: "panel" | "cli";
}

/** The audit record's tool name for a change of a workspace's policy. */
export const WORKSPACE_POLICY_AUDIT = "admin.workspace.policy";

/** A pending invitation to a workspace (issue 31): for an email, not a user, until the person it names decides. */
export interface InvitationRecord {
  id: string;
  workspaceId: string;
  workspaceName: string;
  email: string;
  role: Role;
  /** The owner who invited, and their display name (null when that user is gone). */
  invitedBy: string;
  invitedByName: string | null;
  createdAt: string;
}

export interface MemberRecord {
  userId: string;
  name: string;
  role: Role;
}

export interface TokenListing extends TokenRecord {
  createdAt: string;
  /** When the token's newest audited call was made; null if it never made one. */
  lastUsedAt: string | null;
}

/**
 * Which membership rule an `AdminRefusal` is, with the ids it names: the message speaks to operators in ids (the
 * CLI prints it), and the panel words the same facts for people, with names (`asPanelRefusal` in packages/tools).
 */
export type AdminRule =
  | { rule: "last_owner"; userId: string; workspaceId: string }
  | { rule: "not_member"; userId: string; workspaceId: string };

/** An operator change the kernel refuses: it would leave a workspace without an owner, or names nothing. */
export class AdminRefusal extends Error {
  constructor(
    message: string,
    /** The rule and its ids, where a person's screen words the refusal itself; absent for the operator-only ones. */
    readonly facts: AdminRule | null = null,
  ) {
    super(message);
    this.name = "AdminRefusal";
  }
}

/**
 * By name as well as by class: a bundler (Next's server build) may hold two copies of this module, and a
 * refusal from one is no `instanceof` of the other's class.
 */
export function isAdminRefusal(error: unknown): error is AdminRefusal {
  return error instanceof AdminRefusal || (error instanceof Error && error.name === "AdminRefusal");
}

export interface KernelAdmin {
  /** Refuses an email another user has (compared lower-case). */
  createUser(input: { id?: string; name: string; email?: string | null } & OperatorAudit): Promise<UserRecord>;
  /** Sets (or, with null, clears) the user's email; refuses an unknown user and an email another user has. */
  setUserEmail(userId: string, email: string | null, audit?: OperatorAudit): Promise<UserRecord>;
  /** The user with this email (compared lower-case), if any. */
  findUserByEmail(email: string): Promise<UserRecord | null>;
  createWorkspace(
    input: { id?: string; name: string; ownerId: string; approvalRequired?: boolean } & OperatorAudit,
  ): Promise<WorkspaceRecord>;
  /**
   * The one way a workspace's approval policy changes (panel and CLI alike): who asks is required, and the
   * change is audited (`admin.workspace.policy`: who, when, from, to, and the door it came through).
   */
  setWorkspacePolicy(
    workspaceId: string,
    change: Partial<WorkspacePolicy>,
    who: PolicyActor,
  ): Promise<{ from: WorkspacePolicy; to: WorkspacePolicy }>;
  /** Adds the member, or changes the role of one already there. Refuses to demote a workspace's last owner. */
  addMember(input: { workspaceId: string; userId: string; role: Role } & OperatorAudit): Promise<void>;
  /** Changes a member's role; refuses a user who is not a member, and demoting the last owner. */
  setMemberRole(input: { workspaceId: string; userId: string; role: Role } & OperatorAudit): Promise<void>;
  /** Refuses to remove a workspace's last owner, and a user who is not a member. */
  removeMember(input: { workspaceId: string; userId: string } & OperatorAudit): Promise<void>;
  listMembers(workspaceId: string): Promise<MemberRecord[]>;
  /**
   * Invites an email to a workspace with a role (`admin.member.invite`, under `by`). Looks up no user: the answer is
   * the same whether anyone has the email. A second invitation of the same email while one is pending replaces its
   * role. Refuses an email the contract's rule does not accept.
   */
  inviteMember(input: { workspaceId: string; email: string; role: Role } & OperatorAudit): Promise<{ id: string }>;
  /** The workspace's pending invitations (for its owners). */
  listWorkspaceInvitations(workspaceId: string): Promise<InvitationRecord[]>;
  /** The pending invitations addressed to this user's email (none for a user without one). */
  listInvitationsForUser(userId: string): Promise<InvitationRecord[]>;
  /**
   * The invited person decides: accept makes them a member with the invitation's role (or that role, if already
   * one), decline does not; either way the invitation is decided and audited (`admin.member.invitation`, under the
   * person). Refuses (one refusal for both) an invitation that is not pending or not addressed to this user's email.
   */
  decideInvitation(input: { invitationId: string; userId: string; accept: boolean }): Promise<InvitationRecord>;
  createPage(
    input: {
      id?: string;
      workspaceId: string;
      title: string;
      isPrivate?: boolean;
      blocks?: Block[];
      createdBy: string;
    } & OperatorAudit,
  ): Promise<PageRecord>;
  grantPage(input: { documentId: string; userId: string; access: PageAccess } & OperatorAudit): Promise<void>;
  revokePageGrant(input: { documentId: string; userId: string } & OperatorAudit): Promise<void>;
  createToken(
    input: {
      userId: string;
      holder: TokenHolder;
      scopes: Capability[];
      label?: string;
      ttlSeconds?: number | null;
    } & OperatorAudit,
  ): Promise<{ token: string; record: TokenRecord }>;
  revokeToken(tokenId: string, audit?: OperatorAudit): Promise<void>;
  /** Revokes every live token of the user; answers how many. */
  revokeTokensOf(userId: string, audit?: OperatorAudit): Promise<number>;
  /** The user's tokens, newest first, without their hashes. */
  listTokens(userId: string): Promise<TokenListing[]>;
  /**
   * Removes the user: memberships, page grants and tokens go with it (their calls stop at once); commands and audit
   * records keep the user's id. Refuses while the user is the last owner of a workspace.
   */
  removeUser(userId: string, audit?: OperatorAudit): Promise<void>;
  getUser(id: string): Promise<UserRecord | null>;
  listUsers(): Promise<UserRecord[]>;
  listWorkspaces(userId?: string): Promise<Array<WorkspaceRecord & { role: Role | null }>>;
  listPages(workspaceId: string): Promise<PageRecord[]>;
  /** Row counts of every business table, for tests that prove nothing was written. */
  tableSnapshot(): Promise<Record<string, unknown[]>>;
}
