import { resolve } from "node:path";
import { ConfigReader, databaseSettingsFromEnv, type DatabaseSettings, type ToolsSettings, toolsSettingsFromEnv } from "@mnote/tools";

/** The panel's whole configuration, read from the environment once and checked as one. */
export interface PanelEnv {
  /** MNOTE_DATABASE_URL (+ MNOTE_PG_*); `npm start` passes an absolute URL, the fallback is the repository's default database. */
  database: DatabaseSettings;
  /** MNOTE_SECURE_COOKIES=1 (0 or unset: off): required whenever the panel is served over HTTPS. */
  secureCookies: boolean;
  /** MNOTE_PANEL_ORIGINS: comma-separated origins allowed to send changes besides the panel's own. */
  allowedOrigins: string[];
  /** MNOTE_DEV_SIGNIN_USERS: the demo users the sign-in picker may sign in; empty means no picker. */
  devSignInUsers: string[];
  /** MNOTE_IDEMPOTENCY_TTL_HOURS, the same rule as on the bridge and the CLI. */
  tools: ToolsSettings;
}

const list = (value: string | undefined, clean: (item: string) => string = (item) => item) =>
  (value ?? "")
    .split(",")
    .map((item) => clean(item.trim()))
    .filter(Boolean);

/** Throws a ConfigError naming every bad variable (instrumentation.ts turns it into a refusal to start). */
export function readPanelEnv(env: Record<string, string | undefined>): PanelEnv {
  const config = new ConfigReader(env);
  const secure = config.oneOf("MNOTE_SECURE_COOKIES", ["0", "1"]);
  const tools = toolsSettingsFromEnv(config);
  const database = databaseSettingsFromEnv(config, `file:${resolve(process.cwd(), "../../.mnote/mnote.db")}`);
  const allowedOrigins = list(config.raw("MNOTE_PANEL_ORIGINS"), (origin) => origin.replace(/\/+$/, ""));
  for (const origin of allowedOrigins) {
    if (!/^https?:\/\/[^/\s]+$/.test(origin)) config.problem(`MNOTE_PANEL_ORIGINS: ${JSON.stringify(origin.slice(0, 100))} is not an origin like https://panel.example.com`);
  }
  config.done();
  return {
    database,
    secureCookies: secure === "1",
    allowedOrigins,
    devSignInUsers: list(config.raw("MNOTE_DEV_SIGNIN_USERS")),
    tools,
  };
}

const shared = globalThis as { __mnotePanelEnv?: PanelEnv };

/** This process's configuration (checked at start by instrumentation.ts; every reader goes through here). */
export function panelEnv(): PanelEnv {
  shared.__mnotePanelEnv ??= readPanelEnv(process.env);
  return shared.__mnotePanelEnv;
}
