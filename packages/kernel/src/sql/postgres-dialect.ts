import { type SqlValue, UniqueViolation } from "./driver";

/**
 * What the node-postgres and PGlite drivers share: the placeholder rewrite, the
 * error mapping and the retry rule. Kernel SQL is written with `?`; PostgreSQL
 * wants `$1, $2, …`. Our SQL never has a `?` inside a string literal, so a plain
 * left-to-right rewrite is exact.
 */
const translated = new Map<string, string>();
export function toPostgresPlaceholders(sql: string): string {
  let text = translated.get(sql);
  if (text === undefined) {
    let n = 0;
    text = sql.replace(/\?/g, () => `$${++n}`);
    if (translated.size > 5000) translated.clear();
    translated.set(sql, text);
  }
  return text;
}

export function sqlState(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : undefined;
}

/** 23505 unique_violation becomes the driver-neutral `UniqueViolation` the kernel retries on. */
export function mapPostgresError(error: unknown): unknown {
  return sqlState(error) === "23505" ? new UniqueViolation(error) : error;
}

/** 40001 serialization_failure and 40P01 deadlock_detected: the whole transaction may simply run again. */
export function isRetryableTransactionError(error: unknown): boolean {
  const code = sqlState(error);
  return code === "40001" || code === "40P01";
}

/** Full jitter: a random wait up to an exponentially growing cap, so retrying racers spread out. */
export function retryDelayMs(attempt: number): number {
  return Math.random() * Math.min(1000, 20 * 2 ** attempt);
}

/**
 * PostgreSQL BIGINT (and COUNT(*)) arrive as strings because they can exceed
 * 2^53. The values mnote keeps there (audit ids, counts) never do; turn them into
 * numbers so every driver returns the same `SqlValue`s, and refuse silently
 * losing precision.
 */
export function parseInt8(text: string): number | string {
  const value = Number(text);
  return Number.isSafeInteger(value) ? value : text;
}

export const INT8_OID = 20;

export function asParams(params: SqlValue[] | undefined): SqlValue[] {
  return params ?? [];
}

/** Schema names go into SQL and into the `search_path` start-up option, so keep them plain. */
export function checkSchemaName(schema: string): string {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) {
    throw new Error(`schema name must match [a-z_][a-z0-9_]* (got ${JSON.stringify(schema)})`);
  }
  return schema;
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
