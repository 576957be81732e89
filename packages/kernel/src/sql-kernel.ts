import { createAdmin } from "./admin";
import { getCommentThreadFacts, getLatestCommentActivity, listCommentThreads } from "./comments";
import { type Clock, systemClock } from "./clock";
import { createOAuth, type KernelOAuth } from "./oauth";
import * as askRecords from "./ask-records";
import { searchWorkspace, type WorkspaceSearchQuery } from "./search";
import { appendAudit, rejectProposal } from "./audit-records";
import { KernelChangeFeed } from "./change-feed";
import { type AuditExportQuery, getStreamCursor, listAuditForExport, setStreamCursor } from "./audit-export";
import { ensureMonthPartitions } from "./audit-partitions";
import { guardAuditMonths } from "./audit-month-guard";
import { migrate } from "./migrations";
import { createHousekeeping, type KernelHousekeeping } from "./retention";
import { getDisplayNames, listPageOverviews } from "./panel-reads";
import { readBlocks } from "./page-state";
import * as reads from "./reads";
import { inSession, type PoolStats, type SqlDriver } from "./sql/driver";
import type {
  AuditInput,
  AuditQuery,
  BlockWindowQuery,
  CallFactsQuery,
  CommentThreadQuery,
  EditQuery,
  ExecuteOutcome,
  ExecuteRequest,
  KernelAdmin,
  KernelAsk,
  ProposalQuery,
  ProposalRejection,
} from "./types";
import { createWriteTransaction } from "./write-transaction";

/** How a kernel is opened besides its driver. */
export interface KernelOptions {
  /** Where the kernel takes the time from (clock.ts); the wall clock unless a test moves its own. */
  clock?: Clock;
}

/**
 * The only door to mnote data: the tools router calls it; nothing else writes. Every method is async so a
 * networked database serves it too.
 *
 * Written once over the SQL both SQLite and PostgreSQL speak (decision 0003); the drivers are the one seam with
 * several implementations (`sql/driver.ts`). This class only puts the parts together on one driver: the reads
 * (`reads.ts`), the write transaction (`write-transaction.ts`, which runs the command appliers of
 * `command-appliers.ts`), audit records and proposals (`audit-records.ts`) and the operator's commands (`admin.ts`).
 * It is its own type: code that needs the kernel names `SqlKernel`, and "go to definition" lands here.
 */
export class SqlKernel {
  /** Administration: the operator CLI, demo data, tests. */
  readonly admin: KernelAdmin;
  /** Questions asked from the panel: whose conversation, which page, and the runs any panel instance follows. */
  readonly ask: KernelAsk;
  /** The OAuth authorization server's records (decision 0027). */
  readonly oauth: KernelOAuth;
  /** Retention and expired records (retention.ts, decision 0035): what the processes' scheduler runs. */
  readonly housekeeping: KernelHousekeeping;
  private readonly write: (request: ExecuteRequest) => Promise<ExecuteOutcome>;
  /**
   * Committed changes, this process's and (PostgreSQL) every instance's: what the panel pushes (decision 0017,
   * change-feed.ts).
   */
  readonly changes: KernelChangeFeed;
  private readonly db: SqlDriver;
  /** Where every time the kernel writes comes from; the tools context reads it from here (clock.ts). */
  readonly clock: Clock;

  constructor(
    private readonly source: SqlDriver,
    options: KernelOptions = {},
  ) {
    const clock = (this.clock = options.clock ?? systemClock);
    this.changes = new KernelChangeFeed(source, clock);
    // The feed's driver: what a transaction announces is emitted when it commits. On PostgreSQL every write first
    // makes sure the audit partition of the clock's month exists (audit-month-guard.ts, decision 0041).
    this.db = guardAuditMonths(this.changes.driver, clock);
    this.admin = createAdmin(this.db, clock);
    this.oauth = createOAuth(this.db, clock);
    this.housekeeping = createHousekeeping(this.db, clock, this.oauth);
    const db = this.db;
    this.ask = {
      openSession: (input) => askRecords.openAskSession(db, clock, input),
      getSession: (sessionId) => askRecords.getAskSession(db, sessionId),
      recordRun: (run) => askRecords.recordAskRun(db, clock, run),
      getRun: (runId) => askRecords.getAskRun(db, runId),
      findRunByKey: (userId, startKey) => askRecords.findAskRunByKey(db, userId, startKey),
      latestRun: (sessionId) => askRecords.latestAskRun(db, sessionId),
      appendRunLines: (runId, lines, ended) => askRecords.appendAskRunLines(db, clock, runId, lines, ended),
      listRunLines: (runId, after, limit) => askRecords.listAskRunLines(db, runId, after, limit),
      sweepRuns: (options) => askRecords.sweepAskRuns(db, clock, options),
      runState: (runId) => askRecords.askRunState(db, clock, runId),
      readRun: (runId, after, limit) => askRecords.readAskRun(db, clock, runId, after, limit),
      isGoingOn: (run) => askRecords.isAskRunGoingOn(run, clock.now()),
    };
    this.write = createWriteTransaction(this.db, this.changes.announce, clock);
  }

  get dialect(): "sqlite" | "postgres" {
    return this.db.dialect;
  }

  /** The database pool's connections and errors (PostgreSQL); null for an in-process database (metrics). */
  poolStats(): PoolStats | null {
    return this.source.poolStats?.() ?? null;
  }

  /** Proposals waiting for a person, in every workspace (metrics: one COUNT on the proposals index). */
  async countPendingProposals(): Promise<number> {
    const row = await this.db.get<{ n: number | string }>(
      `SELECT COUNT(*) AS n FROM proposals WHERE status = 'pending'`,
    );
    return Number(row?.n ?? 0);
  }

  static async open(driver: SqlDriver, options: KernelOptions = {}): Promise<SqlKernel> {
    await migrate(driver, options.clock);
    // PostgreSQL: this month's audit partition and the next two exist before the first record is written.
    await inSession(driver, (session) =>
      ensureMonthPartitions(session, driver.dialect, (options.clock ?? systemClock).now()),
    );
    return new SqlKernel(driver, options);
  }

  async close(): Promise<void> {
    await this.changes.close();
    return this.db.close();
  }

  /** One trivial statement on the database (`SELECT 1`): rejects when it cannot answer. For readiness probes. */
  async ping(): Promise<void> {
    await this.db.get("SELECT 1 AS ok");
  }

  // Reads.
  findTokenByHash(tokenHash: string) {
    return reads.findTokenByHash(this.db, tokenHash);
  }
  getAccessFacts(input: { workspaceId: string; documentId: string | null; userId: string }) {
    return reads.getAccessFacts(this.db, input);
  }
  /** The token, its user's access and idempotency record in one read: a tool call's checks, before any write. */
  /** The workspace search (issue 34): hits on the pages every reader may read, in the order search.ts gives. */
  searchWorkspace(query: WorkspaceSearchQuery) {
    return searchWorkspace(this.db, query);
  }

  getCallFacts(input: CallFactsQuery) {
    return reads.getCallFacts(this.db, input);
  }
  getPage(documentId: string) {
    return reads.getPage(this.db, documentId);
  }
  getBlocks(documentId: string) {
    return readBlocks(this.db, documentId);
  }
  /** Which of `ids` are on the page (in no particular order): an append's plan asks about its new ids only. */
  findBlockIds(documentId: string, ids: readonly string[]) {
    return reads.findBlockIds(this.db, documentId, ids);
  }
  /** The blocks of `ids` that are on the page, with their positions (in no particular order): what an edit names. */
  findBlocks(documentId: string, ids: readonly string[]) {
    return reads.findBlocks(this.db, documentId, ids);
  }
  /**
   * Part of a page in position order, from position `from`, at most `limit` entries: every block, only
   * the headings, or only the blocks whose text contains `search` (case-insensitive). Reads no other rows.
   */
  getBlockWindow(documentId: string, query: BlockWindowQuery) {
    return reads.getBlockWindow(this.db, documentId, query);
  }
  getSummary(documentId: string) {
    return reads.getSummary(this.db, documentId);
  }
  /** The page as it was just before a command ran, rebuilt from the command log. */
  getPageStateBefore(commandId: string) {
    return reads.getPageStateBefore(this.db, commandId);
  }
  /** The page just before and just after a command, rebuilt from the command log (what a revert takes back). */
  getCommandStates(commandId: string) {
    return reads.getCommandStates(this.db, commandId);
  }
  /**
   * The page's pending proposals (newest first, at most MAX_PENDING_PROPOSALS) and then its newest decided
   * ones, from the proposals index: never the previews, and no matter how many other audit records the page has.
   */
  listProposals(query: ProposalQuery) {
    return reads.listProposals(this.db, query);
  }
  /** A workspace's pending proposals of one tool, whatever their page (a held new page has none yet). */
  listPendingProposalsOf(query: { workspaceId: string; toolName: string }) {
    return reads.listPendingProposalsOf(this.db, query);
  }
  /** One proposal's index row, by the id of its audit record. */
  getProposal(auditId: number) {
    return reads.getProposal(this.db, auditId);
  }
  /**
   * The newest proposal of this edit by this actor that was held or decided (a pending dry run is not an
   * answer), with the applied result when applied: what a retry of a held agent write answers.
   */
  getEditDecision(query: EditQuery) {
    return reads.getEditDecision(this.db, query);
  }
  listAudit(query: AuditQuery) {
    return reads.listAudit(this.db, query);
  }
  /** Audit records of a time range, oldest first from a cursor (the export and the stream to an operator's SIEM). */
  listAuditForExport(query: AuditExportQuery) {
    return listAuditForExport(this.db, query);
  }
  /** The last record id the stream to `target` delivered (0: none yet). */
  getStreamCursor(target: string) {
    return getStreamCursor(this.db, target);
  }
  /** The stream to `target` delivered every record up to `afterId` (a cursor never moves back). */
  setStreamCursor(target: string, afterId: number) {
    return setStreamCursor(this.db, target, afterId, this.clock.now().toISOString());
  }
  getAudit(id: number) {
    return reads.getAudit(this.db, id);
  }
  getCommand(commandId: string) {
    return reads.getCommand(this.db, commandId);
  }
  /**
   * What the revert rule needs of an applied command (issue 20): the audit record of the write that applied it,
   * and whether a revert of it was applied since (a `page.revert` command keyed `revert_<commandId>_r…`).
   */
  getRevertFacts(commandId: string) {
    return reads.getRevertFacts(this.db, commandId);
  }
  /** Every page of a workspace with the user's access facts and pending proposal count, in one read (title order). */
  listPageOverviews(input: { workspaceId: string; userId: string }) {
    return listPageOverviews(this.db, input);
  }
  /** The names of these users and tokens, in one read per kind; ids that name nothing are left out. */
  getDisplayNames(input: { userIds: readonly string[]; tokenIds: readonly string[] }) {
    return getDisplayNames(this.db, input);
  }
  listArtifacts(documentId: string) {
    return reads.listArtifacts(this.db, documentId);
  }
  /** A page's comment threads with their comments, oldest first, from a position (decision 0040). */
  listCommentThreads(query: CommentThreadQuery) {
    return listCommentThreads(this.db, query);
  }
  /** When the page's comment threads last changed, or null when it has none. */
  getLatestCommentActivity(documentId: string) {
    return getLatestCommentActivity(this.db, documentId);
  }
  /** A thread's page and how many comments it holds, or null: what a reply's plan checks. */
  getCommentThreadFacts(threadId: string) {
    return getCommentThreadFacts(this.db, threadId);
  }

  // Writes.
  execute(request: ExecuteRequest) {
    return this.write(request);
  }

  appendAudit(record: AuditInput) {
    return appendAudit(this.db, record, this.changes.announce, this.clock);
  }

  /**
   * Rejects a pending proposal (and pending repeats of its edit) with its audit record, in one transaction
   * queued behind writes to the page: the audit id, or null when it was no longer pending (nothing written).
   */
  rejectProposal(rejection: ProposalRejection) {
    return rejectProposal(this.db, rejection, this.changes.announce, this.clock);
  }

  async purgeExpiredIdempotency(now: string) {
    return (await this.db.run(`DELETE FROM idempotency WHERE expires_at <= ?`, [now])).changes;
  }

  /**
   * Add one to `key`'s counter for the fixed window starting at `windowStart` and return the new
   * count: a limit every instance on this database shares (failed authentication per address).
   * One upsert per call, so callers use it for rare events, not for every request.
   */
  async countInWindow(key: string, windowStart: Date, windowMs: number) {
    const start = windowStart.toISOString();
    const expires = new Date(windowStart.getTime() + windowMs).toISOString();
    return this.db.transaction(async (tx) => {
      // Windows that ended are worth nothing; the index makes this a no-op most of the time.
      await tx.run(`DELETE FROM rate_windows WHERE expires_at <= ?`, [this.clock.now().toISOString()]);
      const row = await tx.get<{ count: number | string }>(
        `INSERT INTO rate_windows (key, window_start, count, expires_at) VALUES (?, ?, 1, ?)
         ON CONFLICT (key, window_start) DO UPDATE SET count = rate_windows.count + 1 RETURNING count`,
        [key.slice(0, 200), start, expires],
      );
      return Number(row!.count);
    });
  }
}
