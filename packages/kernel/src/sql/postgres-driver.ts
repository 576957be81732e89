import type { SqlDriver } from "./driver";

export async function openPostgresDriver(_url: string): Promise<SqlDriver> {
  throw new Error("PostgreSQL support is not built yet");
}
