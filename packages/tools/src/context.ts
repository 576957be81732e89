import type { Block } from "@mnote/contract";
import type { PanelHermes } from "@mnote/hermes-runs";
import type { AppliedPart, CallIdentity, ChangeSettlement, Clock, SqlKernel, TokenHolder } from "@mnote/kernel";
import type { OAuthServerSettings } from "@mnote/oauth";
import { type ConfigReader, consoleLogger, type Logger } from "@mnote/process";
import { DEFAULT_READ_CACHE_BYTES } from "./read-cache";

export interface ToolsSettings {
  /** How long an idempotency key keeps its stored result (MNOTE_IDEMPOTENCY_TTL_HOURS, default 24 h). */
  idempotencyTtlMs: number;
  /**
   * Memory the process may give to what `page.get` read, for the next read of the same page state
   * (MNOTE_READ_CACHE_MB, default 16; 0 turns it off; decision 0029). Left out: the default.
   */
  readCacheBytes?: number;
  /** The panel's OAuth authorization server (decision 0027); absent or null everywhere else: its procedures refuse. */
  oauth?: OAuthServerSettings | null;
}

export const DEFAULT_SETTINGS: ToolsSettings = {
  idempotencyTtlMs: 24 * 3_600_000,
  readCacheBytes: DEFAULT_READ_CACHE_BYTES,
};

/**
 * The router's settings from the environment, read once at a process's start and passed to
 * `createToolsContext`: MNOTE_IDEMPOTENCY_TTL_HOURS (0.01 to 8760 hours, default 24) and MNOTE_READ_CACHE_MB (0 to
 * 4096, default 16). A bad value is a problem on `config` (the process refuses to start), never a failure of every
 * later call.
 */
export function toolsSettingsFromEnv(config: ConfigReader): ToolsSettings {
  const hours = config.number("MNOTE_IDEMPOTENCY_TTL_HOURS", { min: 0.01, max: 24 * 365, unit: "hours" });
  const cacheMb = config.number("MNOTE_READ_CACHE_MB", { min: 0, max: 4096, unit: "MB" });
  return {
    idempotencyTtlMs: hours === undefined ? DEFAULT_SETTINGS.idempotencyTtlMs : Math.round(hours * 3_600_000),
    readCacheBytes: cacheMb === undefined ? DEFAULT_READ_CACHE_BYTES : Math.round(cacheMb * 1024 * 1024),
  };
}

/**
 * The door a call came in through. `panel`: the page-AI panel, a person's session
 * cookie. `agent`: every door software uses (the bridge's HTTP endpoint, MCP over
 * HTTP or stdio, the CLI's `mnote call`). Decision 0012 (docs/security.md).
 */
export type Door = "panel" | "agent";

/** Why a token may not be used at a door; null when its holder belongs there. The one rule for every door. */
export function doorRefusal(door: Door, holder: TokenHolder): string | null {
  if (door === "panel") {
    return holder === "person"
      ? null
      : "the panel is for people: agent tokens call the tools through the bridge or the CLI";
  }
  return holder === "agent"
    ? null
    : "person tokens are for the panel; give agents an agent token: mnote admin token create --holder agent";
}

/**
 * What every call needs: the kernel, the credential the transport received, the door it came through, and where
 * its time comes from and its failures go.
 */
export interface ToolsContext {
  kernel: SqlKernel;
  /** The kernel's clock (`kernel.clock`): the checks and the kernel agree on what time it is. */
  clock: Clock;
  /** Where the router writes what it cannot answer with (an unexpected error, a lost audit line). */
  logger: Logger;
  /** An `Authorization` header value (`Bearer …`) or a bare token; null when the caller sent none. */
  authorization: string | null;
  door: Door;
  /**
   * The resource this door is (RFC 8707): the bridge's /mcp URL when it is an OAuth protected resource; absent or null
   * elsewhere. A token an OAuth grant bound to a resource works only where the door is that resource.
   */
  resource?: string | null;
  settings: ToolsSettings;
  /**
   * The panel's Hermes (Ask Hermes, decision 0043): set only by the panel's server when MNOTE_HERMES_* is configured;
   * absent or null everywhere else, where the `panel.hermes.*` procedures refuse.
   */
  hermes?: PanelHermes | null;
  /**
   * Set only by the panel's decision procedures when a person's approval runs a proposal's tool: the write's
   * audit record names the proposal and who proposed it, and a part applies with its decision (decision 0016).
   */
  decision?: PanelDecision;
}

/** A person's decision on a proposal, carried to the write it makes. */
export interface PanelDecision {
  proposalId: number;
  /** Who proposed the edit (an agent's token, usually): the audit trail says whose proposal was approved. */
  proposer: Pick<CallIdentity, "actorId" | "holder" | "tokenId">;
  /** Only these of the proposal's changes are written; the proposal is then applied in part. */
  part?: AppliedPart;
  /** The person edited these proposed blocks before applying: each as proposed and as applied. */
  edits?: BlockEdit[];
  /** Decided change by change (decision 0030): what this step decides, of how many changes. */
  changes?: ChangeSettlement;
  /** The step's changes in words, for the trail ("inserted 'Alpha line' after 'Rollout'"). */
  description?: string;
}

/** One proposed block a person changed before applying it, both versions kept for the audit trail. */
export interface BlockEdit {
  blockId: string;
  proposed: Block;
  applied: Block;
}

/** The secret of an `Authorization` value (`Bearer …`, or a bare token); null when empty. */
export function bearerSecret(authorization: string | null | undefined): string | null {
  const secret = authorization?.replace(/^Bearer\s+/i, "").trim();
  return secret ? secret : null;
}

/**
 * `door` defaults to `agent`, the stricter one: only the panel's own server says `panel`. The clock is always the
 * kernel's (one per process, so a key's expiry and the time a write records cannot disagree); the logger is the
 * process's (the bridge's pino logger), else the console.
 */
export function createToolsContext(input: {
  kernel: SqlKernel;
  authorization?: string | null;
  door?: Door;
  settings?: Partial<ToolsSettings>;
  resource?: string | null;
  logger?: Logger;
  hermes?: PanelHermes | null;
}): ToolsContext {
  return {
    kernel: input.kernel,
    clock: input.kernel.clock,
    logger: input.logger ?? consoleLogger,
    authorization: input.authorization ?? null,
    door: input.door ?? "agent",
    resource: input.resource ?? null,
    settings: { ...DEFAULT_SETTINGS, ...input.settings },
    hermes: input.hermes ?? null,
  };
}
