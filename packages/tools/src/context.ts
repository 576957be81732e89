import type { ConfigReader } from "./config";
import type { KernelAdapter } from "@mnote/kernel";

export interface ToolsSettings {
  /** How long an idempotency key keeps its stored result (MNOTE_IDEMPOTENCY_TTL_HOURS, default 24 h). */
  idempotencyTtlMs: number;
}

export const DEFAULT_SETTINGS: ToolsSettings = {
  idempotencyTtlMs: 24 * 3_600_000,
};

/**
 * The router's settings from the environment, read once at a process's start and passed to
 * `createToolsContext`: MNOTE_IDEMPOTENCY_TTL_HOURS (0.01 to 8760 hours, default 24). A bad value
 * is a problem on `config` (the process refuses to start), never a failure of every later write.
 */
export function toolsSettingsFromEnv(config: ConfigReader): ToolsSettings {
  const hours = config.number("MNOTE_IDEMPOTENCY_TTL_HOURS", { min: 0.01, max: 24 * 365, unit: "hours" });
  return { idempotencyTtlMs: hours === undefined ? DEFAULT_SETTINGS.idempotencyTtlMs : Math.round(hours * 3_600_000) };
}

/** What every call needs: the kernel, and the credential the transport received. */
export interface ToolsContext {
  kernel: KernelAdapter;
  /** An `Authorization` header value (`Bearer …`) or a bare token; null when the caller sent none. */
  authorization: string | null;
  settings: ToolsSettings;
}

/** The secret of an `Authorization` value (`Bearer …`, or a bare token); null when empty. */
export function bearerSecret(authorization: string | null | undefined): string | null {
  const secret = authorization?.replace(/^Bearer\s+/i, "").trim();
  return secret ? secret : null;
}

export function createToolsContext(input: {
  kernel: KernelAdapter;
  authorization?: string | null;
  settings?: Partial<ToolsSettings>;
}): ToolsContext {
  return {
    kernel: input.kernel,
    authorization: input.authorization ?? null,
    settings: { ...DEFAULT_SETTINGS, ...input.settings },
  };
}
