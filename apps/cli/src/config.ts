import { toolsSettingsFromEnv, type ToolsSettings } from "@mnote/tools";
import { ConfigReader, databaseSettingsFromEnv, type DatabaseSettings, type Env } from "@mnote/process";

/** Everything a CLI command may need from the environment, read and checked once before any command runs. */
export interface CliConfig {
  /** MNOTE_DATABASE_URL (default the kernel's DEFAULT_DATABASE_URL) and the PostgreSQL pool settings. */
  database: DatabaseSettings;
  /** MNOTE_IDEMPOTENCY_TTL_HOURS, the same rule as on the bridge and the panel. */
  tools: ToolsSettings;
  /** MNOTE_TOKEN: `mnote call`'s agent token when --token is not given. */
  token: string | undefined;
  /** MNOTE_DEMO_CREDENTIALS: where `mnote demo` keeps the demo tokens. */
  demoCredentials: string | undefined;
}

/**
 * The CLI's configuration (this module is the only place the CLI reads its environment). Throws one ConfigError
 * naming every bad variable: `main` turns it into exit 2 before a command touches the database.
 */
export function readCliConfig(env: Env = process.env): CliConfig {
  const config = new ConfigReader(env);
  const database = databaseSettingsFromEnv(config);
  const tools = toolsSettingsFromEnv(config);
  config.done();
  return { database, tools, token: config.raw("MNOTE_TOKEN"), demoCredentials: config.raw("MNOTE_DEMO_CREDENTIALS") };
}
