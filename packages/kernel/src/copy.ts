import { ensureMonthPartition, KEPT_MONTH } from "./audit-partitions";
import { BUSINESS_TABLES, ENGINE_ONLY_COLUMNS, LATEST_SCHEMA_VERSION, migrate } from "./migrations";
import type { SqlDriver, SqlExecutor, SqlValue } from "./sql/driver";

type BusinessTable = (typeof BUSINESS_TABLES)[number];

/** Each table's primary key: a total order to page through the source with. */
const KEY_ORDER: Record<BusinessTable, string> = {
  users: "id",
  workspaces: "id",
  members: "workspace_id, user_id",
  pages: "id",
  page_grants: "document_id, user_id",
  blocks: "document_id, id",
  tokens: "id",
  commands: "id",
  idempotency: "workspace_id, actor_id, tool_name, key",
  nodes: "id",
  edges: "id",
  audit_log: "id",
  proposals: "audit_id",
  ask_sessions: "session_id",
  oauth_clients: "client_id",
  oauth_requests: "id",
  oauth_refresh_tokens: "token_hash",
  invitations: "id",
  comment_threads: "id",
  comments: "id",
};

/** Stay under SQLite's oldest bound-parameter limit (999) in one multi-row INSERT. */
const MAX_PARAMS_PER_STATEMENT = 900;

export interface CopyOptions {
  /** Rows read from the source per query. Default 500. */
  batchSize?: number;
  /** Called after each batch, e.g. for a progress line. */
  onProgress?: (progress: { table: BusinessTable; copied: number; total: number }) => void;
}

export interface CopyReport {
  schemaVersion: number;
  /** Rows copied per table, equal in source and target (verified before commit). */
  tables: Record<BusinessTable, number>;
  rows: number;
}

export class CopyRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = "CopyRefused";
  }
}

async function countRows(db: SqlExecutor, table: BusinessTable): Promise<number> {
  const row = await db.get<{ n: number | string }>(`SELECT COUNT(*) AS n FROM ${table}`);
  return Number(row?.n ?? 0);
}

async function nonEmptyTables(db: SqlExecutor): Promise<string[]> {
  const found: string[] = [];
  for (const table of BUSINESS_TABLES) {
    const rows = await countRows(db, table);
    if (rows > 0) found.push(`${table} (${rows} rows)`);
  }
  return found;
}

/**
 * Move every mnote row from one database to another, e.g. a SQLite file to a
 * PostgreSQL server (`mnote migrate-data --from … --to …`).
 *
 * Both databases are brought to the latest schema first. The target must be
 * empty. All rows are written in one target transaction, table by table in
 * foreign-key order and in batches, so a failure leaves the target as it was;
 * the row counts of source and target are compared before that transaction
 * commits. The source is read inside one of its own transactions (on SQLite that
 * holds the write lock, so nobody writes to it meanwhile; stop the instances
 * writing to a PostgreSQL source before copying from it).
 */
export async function copyDatabase(from: SqlDriver, to: SqlDriver, options: CopyOptions = {}): Promise<CopyReport> {
  const batchSize = Math.max(1, options.batchSize ?? 500);
  const sourceVersion = await from
    .get<{ v: number | string | null }>(`SELECT MAX(version) AS v FROM schema_migrations`)
    .catch(() => undefined);
  if (sourceVersion?.v !== undefined && sourceVersion.v !== null && Number(sourceVersion.v) > LATEST_SCHEMA_VERSION) {
    throw new CopyRefused(
      `the source database is at schema version ${sourceVersion.v}, newer than this mnote (${LATEST_SCHEMA_VERSION}); upgrade mnote first`,
    );
  }
  await migrate(from);
  await migrate(to);
  const early = await nonEmptyTables(to);
  if (early.length > 0) throw new CopyRefused(`the target database is not empty: ${early.join(", ")}`);

  return from.transaction((source) =>
    to.transaction(async (target) => {
      // Checked again inside the transaction: another process may have started writing since.
      const late = await nonEmptyTables(target);
      if (late.length > 0) throw new CopyRefused(`the target database is not empty: ${late.join(", ")}`);

      const tables = {} as Record<BusinessTable, number>;
      for (const table of BUSINESS_TABLES) {
        const total = await countRows(source, table);
        if (table === "audit_log" && to.dialect === "postgres") {
          // A record lands in its month's partition, and audit_log has no default one (decision 0041): every
          // month the source's records carry gets its partition first (past ones too; retention drops them).
          const months = await source.all<{ month: number | string }>(
            `SELECT DISTINCT month FROM audit_log WHERE month IS NOT NULL AND month <> ${KEPT_MONTH}`,
          );
          for (const { month } of months) await ensureMonthPartition(target, Number(month));
        }
        let copied = 0;
        for (let offset = 0; ; offset += batchSize) {
          const rows = await source.all<Record<string, SqlValue>>(
            `SELECT * FROM ${table} ORDER BY ${KEY_ORDER[table]} LIMIT ${batchSize} OFFSET ${offset}`,
          );
          if (rows.length === 0) break;
          await insertRows(target, to.dialect, table, rows);
          copied += rows.length;
          options.onProgress?.({ table, copied, total });
          if (rows.length < batchSize) break;
        }
        tables[table] = copied;
      }

      if (to.dialect === "postgres") {
        // Rows came with their audit ids; move the identity sequence past them so new records do not collide.
        await target.get(
          `SELECT setval(pg_get_serial_sequence('audit_log', 'id'), (SELECT COALESCE(MAX(id), 0) + 1 FROM audit_log), false) AS next`,
        );
      }
      // SQLite's AUTOINCREMENT keeps its counter in sqlite_sequence, which explicit ids already raised.

      for (const table of BUSINESS_TABLES) {
        const [inSource, inTarget] = [await countRows(source, table), await countRows(target, table)];
        if (inSource !== tables[table] || inTarget !== tables[table]) {
          throw new Error(
            `row counts disagree for ${table}: source ${inSource}, copied ${tables[table]}, target ${inTarget}`,
          );
        }
      }
      const rows = Object.values(tables).reduce((sum, n) => sum + n, 0);
      return { schemaVersion: LATEST_SCHEMA_VERSION, tables, rows };
    }),
  );
}

async function insertRows(
  target: SqlExecutor,
  dialect: SqlDriver["dialect"],
  table: BusinessTable,
  rows: Array<Record<string, SqlValue>>,
) {
  const columns = Object.keys(rows[0]!).filter((column) => !ENGINE_ONLY_COLUMNS.has(column));
  const perStatement = Math.max(1, Math.floor(MAX_PARAMS_PER_STATEMENT / columns.length));
  const tuple = `(${columns.map(() => "?").join(", ")})`;
  // audit_log.id is GENERATED ALWAYS on PostgreSQL: keeping the source's ids needs the explicit override.
  const override = dialect === "postgres" && table === "audit_log" ? " OVERRIDING SYSTEM VALUE" : "";
  for (let start = 0; start < rows.length; start += perStatement) {
    const chunk = rows.slice(start, start + perStatement);
    const params: SqlValue[] = [];
    for (const row of chunk) for (const column of columns) params.push(row[column] ?? null);
    await target.run(
      `INSERT INTO ${table} (${columns.join(", ")})${override} VALUES ${chunk.map(() => tuple).join(", ")}`,
      params,
    );
  }
}
