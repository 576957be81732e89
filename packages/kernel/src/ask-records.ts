/**
 * Questions asked from the panel (decision 0021): which person and page a conversation belongs to, and the
 * runs of it any panel instance may follow, stop and answer — with the lines of each run, bounded, so a
 * reload or another instance reads the run from where it was.
 */
import type { Clock } from "./clock";
import type { SqlDriver } from "./sql/driver";
import type { AskRunRecord, AskRunStart, AskRunState, AskSessionRecord } from "./types";

interface AskSessionRow {
  session_id: string;
  user_id: string;
  workspace_id: string;
  document_id: string;
  created_at: string;
}
const toSession = (row: AskSessionRow): AskSessionRecord => ({
  sessionId: row.session_id,
  userId: row.user_id,
  workspaceId: row.workspace_id,
  documentId: row.document_id,
  createdAt: row.created_at,
});

interface AskRunRow {
  run_id: string;
  session_id: string;
  user_id: string;
  workspace_id: string;
  document_id: string;
  start_key: string | null;
  status: string;
  started_at: string;
  pumped_at: string;
}
const toRun = (row: AskRunRow): AskRunRecord => ({
  runId: row.run_id,
  sessionId: row.session_id,
  userId: row.user_id,
  workspaceId: row.workspace_id,
  documentId: row.document_id,
  startKey: row.start_key,
  status: row.status === "ended" ? "ended" : "running",
  startedAt: row.started_at,
  pumpedAt: row.pumped_at,
});

/**
 * How long a run's record (ids and times, no text) is kept after its last sign of life: as long as Hermes keeps
 * a run's status (its _RUN_STATUS_TTL, 3600 s) — a retried start or a reload within it still finds the run.
 */
export const ASK_RUN_TTL_MS = 60 * 60 * 1000;
/**
 * A run counts as going on while the instance reading Hermes's stream wrote within this long (it marks the run
 * alive every 20 s; Hermes keeps alive every 30 s). Past it, readers are told Hermes's own word on the run.
 */
export const ASK_RUN_SILENCE_MS = 75_000;
/** How long an ended run's lines stay for readers still following it, unless the panel is told otherwise. */
export const ASK_RUN_LINES_GRACE_MS = 60_000;

/** Whether a run is still being read from Hermes (by some panel instance), at `now`. */
export const isAskRunGoingOn = (run: AskRunRecord, now: Date): boolean =>
  run.status === "running" && now.getTime() - Date.parse(run.pumpedAt) < ASK_RUN_SILENCE_MS;

/**
 * Removes what a run said once nobody can follow it any more (issue 38: mnote keeps no chat): the lines of a
 * run that ended more than `graceMs` ago, and of a run nobody has read from Hermes for longer than a live run
 * is ever silent plus the grace (its reader died: later readers get Hermes's own word, never these lines);
 * then the records of runs silent for longer than Hermes keeps a run. Run by the panel's sweep on its own
 * schedule and at start-up, never as a side effect of another run. Answers what it removed.
 */
export async function sweepAskRuns(
  db: SqlDriver,
  clock: Clock,
  options: { graceMs?: number } = {},
): Promise<{ lines: number; runs: number }> {
  const now = clock.now().getTime();
  const graceMs = Math.max(0, options.graceMs ?? ASK_RUN_LINES_GRACE_MS);
  const ended = new Date(now - graceMs).toISOString();
  const silent = new Date(now - ASK_RUN_SILENCE_MS - graceMs).toISOString();
  const forgotten = new Date(now - ASK_RUN_TTL_MS).toISOString();
  const removed = await db.transaction(async (tx) => {
    const lines = await tx.run(
      `DELETE FROM ask_run_events WHERE run_id NOT IN (SELECT run_id FROM ask_runs WHERE pumped_at >= ?
         AND (status = 'running' OR pumped_at >= ?))`,
      [silent, ended],
    );
    const runs = await tx.run(`DELETE FROM ask_runs WHERE pumped_at < ?`, [forgotten]);
    return { lines: lines.changes, runs: runs.changes };
  });
  // SQLite zeroes deleted rows (secure_delete), but the write-ahead log still holds the pages as they were until
  // it is checkpointed and reset: do that now, so the words leave the files too. (PostgreSQL: its own vacuum and
  // WAL recycling; docs/security.md says what that leaves.) A checkpoint a reader holds back is done next time.
  if (removed.lines > 0 && db.dialect === "sqlite") await db.get(`PRAGMA wal_checkpoint(TRUNCATE)`);
  return removed;
}

/**
 * Records the conversation as this person's, about this page, unless it is recorded already; answers
 * the record that stands (which may be another person's: the caller refuses that one).
 */
export async function openAskSession(
  db: SqlDriver,
  clock: Clock,
  input: Omit<AskSessionRecord, "createdAt">,
): Promise<AskSessionRecord> {
  await db.run(
    `INSERT INTO ask_sessions (session_id, user_id, workspace_id, document_id, created_at) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (session_id) DO NOTHING`,
    [input.sessionId, input.userId, input.workspaceId, input.documentId, clock.now().toISOString()],
  );
  return (await getAskSession(db, input.sessionId))!;
}

export async function getAskSession(db: SqlDriver, sessionId: string): Promise<AskSessionRecord | null> {
  const row = await db.get<AskSessionRow>(`SELECT * FROM ask_sessions WHERE session_id = ?`, [sessionId]);
  return row ? toSession(row) : null;
}

/** The run this person already started with this key, if any: a retried start names the same run. */
export async function findAskRunByKey(db: SqlDriver, userId: string, startKey: string): Promise<AskRunRecord | null> {
  const row = await db.get<AskRunRow>(`SELECT * FROM ask_runs WHERE user_id = ? AND start_key = ?`, [userId, startKey]);
  return row ? toRun(row) : null;
}

export async function recordAskRun(db: SqlDriver, clock: Clock, run: AskRunStart): Promise<void> {
  const now = clock.now();
  await db.transaction(async (tx) => {
    await tx.run(
      `INSERT INTO ask_runs (run_id, session_id, user_id, workspace_id, document_id, start_key, status, started_at, pumped_at)
       VALUES (?, ?, ?, ?, ?, ?, 'running', ?, ?)`,
      [
        run.runId,
        run.sessionId,
        run.userId,
        run.workspaceId,
        run.documentId,
        run.startKey ?? null,
        now.toISOString(),
        now.toISOString(),
      ],
    );
  });
}

export async function getAskRun(db: SqlDriver, runId: string): Promise<AskRunRecord | null> {
  const row = await db.get<AskRunRow>(`SELECT * FROM ask_runs WHERE run_id = ?`, [runId]);
  return row ? toRun(row) : null;
}

/**
 * Appends a run's lines after its last one (the instance reading Hermes's stream is the only writer of a
 * run's lines) and marks it alive; `ended` marks the run over. Answers the last line's number.
 */
export async function appendAskRunLines(
  db: SqlDriver,
  clock: Clock,
  runId: string,
  lines: readonly string[],
  ended: boolean,
): Promise<number> {
  return db.transaction(async (tx) => {
    const last = await tx.get<{ seq: number | string | null }>(
      `SELECT MAX(seq) AS seq FROM ask_run_events WHERE run_id = ?`,
      [runId],
    );
    let seq = Number(last?.seq ?? 0);
    for (const line of lines) {
      seq += 1;
      await tx.run(`INSERT INTO ask_run_events (run_id, seq, line) VALUES (?, ?, ?)`, [runId, seq, line]);
    }
    await tx.run(`UPDATE ask_runs SET pumped_at = ?${ended ? `, status = 'ended'` : ""} WHERE run_id = ?`, [
      clock.now().toISOString(),
      runId,
    ]);
    return seq;
  });
}

/** A run's lines after line `after`, in order, at most `limit`. */
export async function listAskRunLines(
  db: SqlDriver,
  runId: string,
  after: number,
  limit: number,
): Promise<{ seq: number; line: string }[]> {
  const rows = await db.all<{ seq: number | string; line: string }>(
    `SELECT seq, line FROM ask_run_events WHERE run_id = ? AND seq > ? ORDER BY seq LIMIT ${Math.max(1, Math.floor(limit))}`,
    [runId, after],
  );
  return rows.map((row) => ({ seq: Number(row.seq), line: row.line }));
}

/**
 * Whether anyone can follow the run now: `live` while some instance reads it from Hermes, `silent` once that
 * instance stopped marking it alive, `ended`, or `gone` (swept, or never recorded).
 */
export async function askRunState(db: SqlDriver, clock: Clock, runId: string): Promise<AskRunState> {
  const run = await getAskRun(db, runId);
  if (!run) return "gone";
  if (run.status === "ended") return "ended";
  return isAskRunGoingOn(run, clock.now()) ? "live" : "silent";
}

/** A run's lines after line `after` (at most `limit`) and whether anyone can still follow it: one reader's poll. */
export async function readAskRun(
  db: SqlDriver,
  clock: Clock,
  runId: string,
  after: number,
  limit: number,
): Promise<{ lines: { seq: number; line: string }[]; state: AskRunState }> {
  // The state first: a run's last lines and its end are written in one transaction, so lines read after an
  // `ended` include them all (read the other way round, a reader could see no lines, then the end, and miss them).
  const state = await askRunState(db, clock, runId);
  return { state, lines: await listAskRunLines(db, runId, after, limit) };
}

/** The conversation's newest run: a new question waits while it goes on (one run per conversation at a time). */
export async function latestAskRun(db: SqlDriver, sessionId: string): Promise<AskRunRecord | null> {
  const row = await db.get<AskRunRow>(`SELECT * FROM ask_runs WHERE session_id = ? ORDER BY started_at DESC LIMIT 1`, [
    sessionId,
  ]);
  return row ? toRun(row) : null;
}
