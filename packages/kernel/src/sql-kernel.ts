import { createAdmin } from "./admin";
import { createOAuth, type KernelOAuth } from "./oauth";
import * as askRecords from "./ask-records";
import { appendAudit, rejectProposal } from "./audit-records";
import { KernelChangeFeed } from "./change-feed";
import { migrate } from "./migrations";
import { getDisplayNames, listPageOverviews } from "./panel-reads";
import { readBlocks } from "./page-state";
import * as reads from "./reads";
import type { SqlDriver } from "./sql/driver";
import type {
  AuditInput,
  AuditQuery,
  BlockWindowQuery,
  CallFactsQuery,
  EditQuery,
  ExecuteOutcome,
  ExecuteRequest,
  KernelAdapter,
  KernelAsk,
  ProposalQuery,
  ProposalRejection,
} from "./types";
import { createWriteTransaction } from "./write-transaction";

/**
 * The kernel, written once over the SQL both SQLite and PostgreSQL speak. This class only puts the
 * parts together on one driver: the reads (`reads.ts`), the write transaction (`write-transaction.ts`,
 * which runs the command appliers of `command-appliers.ts`), audit records and proposals
 * (`audit-records.ts`) and the operator's commands (`admin.ts`).
 */
export class SqlKernel implements KernelAdapter {
  readonly admin;
  readonly ask: KernelAsk;
  readonly oauth: KernelOAuth;
  private readonly write: (request: ExecuteRequest) => Promise<ExecuteOutcome>;
  /** Every committed change, announced by the write paths (decision 0017, change-feed.ts). */
  readonly changes: KernelChangeFeed;
  private readonly db: SqlDriver;

  constructor(private readonly source: SqlDriver) {
    const driver = source;
    this.changes = new KernelChangeFeed(driver);
    // The feed's driver: what a transaction announces is emitted when it commits.
    this.db = this.changes.driver;
    this.admin = createAdmin(this.db);
    this.oauth = createOAuth(this.db);
    const db = this.db;
    this.ask = {
      openSession: (input) => askRecords.openAskSession(db, input),
      getSession: (sessionId) => askRecords.getAskSession(db, sessionId),
      recordRun: (run) => askRecords.recordAskRun(db, run),
      getRun: (runId) => askRecords.getAskRun(db, runId),
      findRunByKey: (userId, startKey) => askRecords.findAskRunByKey(db, userId, startKey),
      latestRun: (sessionId) => askRecords.latestAskRun(db, sessionId),
      appendRunLines: (runId, lines, ended) => askRecords.appendAskRunLines(db, runId, lines, ended),
      listRunLines: (runId, after, limit) => askRecords.listAskRunLines(db, runId, after, limit),
    };
    this.write = createWriteTransaction(this.db, this.changes.announce);
  }

  get dialect() {
    return this.db.dialect;
  }

  poolStats() {
    return this.source.poolStats?.() ?? null;
  }

  async countPendingProposals() {
    const row = await this.db.get<{ n: number | string }>(
      `SELECT COUNT(*) AS n FROM proposals WHERE status = 'pending'`,
    );
    return Number(row?.n ?? 0);
  }

  static async open(driver: SqlDriver): Promise<SqlKernel> {
    await migrate(driver);
    return new SqlKernel(driver);
  }

  async close() {
    await this.changes.close();
    return this.db.close();
  }

  async ping() {
    await this.db.get("SELECT 1 AS ok");
  }

  // Reads.
  findTokenByHash(tokenHash: string) {
    return reads.findTokenByHash(this.db, tokenHash);
  }
  getAccessFacts(input: { workspaceId: string; documentId: string; userId: string }) {
    return reads.getAccessFacts(this.db, input);
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
  findBlockIds(documentId: string, ids: readonly string[]) {
    return reads.findBlockIds(this.db, documentId, ids);
  }
  findBlocks(documentId: string, ids: readonly string[]) {
    return reads.findBlocks(this.db, documentId, ids);
  }
  getBlockWindow(documentId: string, query: BlockWindowQuery) {
    return reads.getBlockWindow(this.db, documentId, query);
  }
  getSummary(documentId: string) {
    return reads.getSummary(this.db, documentId);
  }
  getPageStateBefore(commandId: string) {
    return reads.getPageStateBefore(this.db, commandId);
  }
  listProposals(query: ProposalQuery) {
    return reads.listProposals(this.db, query);
  }
  getProposal(auditId: number) {
    return reads.getProposal(this.db, auditId);
  }
  getEditDecision(query: EditQuery) {
    return reads.getEditDecision(this.db, query);
  }
  listAudit(query: AuditQuery) {
    return reads.listAudit(this.db, query);
  }
  getAudit(id: number) {
    return reads.getAudit(this.db, id);
  }
  getCommand(commandId: string) {
    return reads.getCommand(this.db, commandId);
  }
  getRevertFacts(commandId: string) {
    return reads.getRevertFacts(this.db, commandId);
  }
  listPageOverviews(input: { workspaceId: string; userId: string }) {
    return listPageOverviews(this.db, input);
  }
  getDisplayNames(input: { userIds: readonly string[]; tokenIds: readonly string[] }) {
    return getDisplayNames(this.db, input);
  }
  listArtifacts(documentId: string) {
    return reads.listArtifacts(this.db, documentId);
  }

  // Writes.
  execute(request: ExecuteRequest) {
    return this.write(request);
  }

  appendAudit(record: AuditInput) {
    return appendAudit(this.db, record, this.changes.announce);
  }

  rejectProposal(rejection: ProposalRejection) {
    return rejectProposal(this.db, rejection, this.changes.announce);
  }

  async purgeExpiredIdempotency(now: string) {
    return (await this.db.run(`DELETE FROM idempotency WHERE expires_at <= ?`, [now])).changes;
  }

  async countInWindow(key: string, windowStart: Date, windowMs: number) {
    const start = windowStart.toISOString();
    const expires = new Date(windowStart.getTime() + windowMs).toISOString();
    return this.db.transaction(async (tx) => {
      // Windows that ended are worth nothing; the index makes this a no-op most of the time.
      await tx.run(`DELETE FROM rate_windows WHERE expires_at <= ?`, [new Date().toISOString()]);
      const row = await tx.get<{ count: number | string }>(
        `INSERT INTO rate_windows (key, window_start, count, expires_at) VALUES (?, ?, 1, ?)
         ON CONFLICT (key, window_start) DO UPDATE SET count = rate_windows.count + 1 RETURNING count`,
        [key.slice(0, 200), start, expires],
      );
      return Number(row!.count);
    });
  }
}
