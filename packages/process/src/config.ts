import { DEFAULT_DATABASE_URL, type OpenOptions } from "@mnote/kernel";

/**
 * Reading configuration from the environment, once per process, at start. Every problem is
 * collected (not just the first), and `done()` refuses the whole configuration with one message
 * naming each variable: a process must not start and then fail every call on a typo.
 */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration (nothing was started):\n${problems.map((p) => `  - ${p}`).join("\n")}`);
    this.name = "ConfigError";
  }
}

export type Env = Readonly<Record<string, string | undefined>>;

/** How the configuration quotes a bad value: in short, so a pasted secret or a huge value stays out of logs. */
const quote = (raw: string) => JSON.stringify(raw.length > 40 ? `${raw.slice(0, 40)}…` : raw);

export class ConfigReader {
  readonly problems: string[] = [];

  constructor(readonly env: Env) {}

  /** The variable's value, or undefined when unset or blank. */
  raw(name: string): string | undefined {
    const value = this.env[name];
    return value === undefined || value.trim() === "" ? undefined : value.trim();
  }

  /** A number within [min, max] (an integer when asked), else a problem and the fallback. */
  number(name: string, rule: { min: number; max: number; integer?: boolean; unit?: string }): number | undefined {
    const raw = this.raw(name);
    if (raw === undefined) return undefined;
    const value = Number(raw);
    const kind = rule.integer ? "an integer" : "a number";
    if (!Number.isFinite(value) || (rule.integer && !Number.isInteger(value)) || value < rule.min || value > rule.max) {
      this.problems.push(
        `${name} must be ${kind} from ${rule.min} to ${rule.max}${rule.unit ? ` (${rule.unit})` : ""}, got ${quote(raw)}`,
      );
      return undefined;
    }
    return value;
  }

  /** One of a fixed set of words. */
  oneOf<const T extends string>(name: string, choices: readonly T[]): T | undefined {
    const raw = this.raw(name);
    if (raw === undefined) return undefined;
    if (!(choices as readonly string[]).includes(raw)) {
      this.problems.push(`${name} must be one of ${choices.join(", ")}, got ${quote(raw)}`);
      return undefined;
    }
    return raw as T;
  }

  /** A comma-separated list; undefined when unset. */
  list(name: string): string[] | undefined {
    const items = this.raw(name)
      ?.split(",")
      .map((item) => item.trim())
      .filter(Boolean);
    return items?.length ? items : undefined;
  }

  problem(message: string) {
    this.problems.push(message);
  }

  /** Throws one ConfigError listing every problem found so far. */
  done() {
    if (this.problems.length) throw new ConfigError(this.problems);
  }
}

/** Where a process's data lives and how to open it: the arguments of `openKernel(url, options)`. */
export interface DatabaseSettings {
  url: string;
  options: OpenOptions;
}

/**
 * MNOTE_DATABASE_URL (default `fallbackUrl`, normally the kernel's DEFAULT_DATABASE_URL), and for PostgreSQL
 * MNOTE_PG_POOL_MAX (connections per process, 1 to 1000, default 10) and MNOTE_PG_STATEMENT_TIMEOUT_MS (0 = none,
 * default 5000). The same rule for the bridge, the CLI and the panel; problems go on `config`.
 */
export function databaseSettingsFromEnv(
  config: ConfigReader,
  fallbackUrl: string = DEFAULT_DATABASE_URL,
): DatabaseSettings {
  const poolMax = config.number("MNOTE_PG_POOL_MAX", { min: 1, max: 1000, integer: true, unit: "connections" });
  const statementTimeoutMs = config.number("MNOTE_PG_STATEMENT_TIMEOUT_MS", {
    min: 0,
    max: 86_400_000,
    integer: true,
    unit: "ms",
  });
  const postgres = {
    ...(poolMax === undefined ? {} : { poolMax }),
    ...(statementTimeoutMs === undefined ? {} : { statementTimeoutMs }),
  };
  return { url: config.raw("MNOTE_DATABASE_URL") ?? fallbackUrl, options: { postgres } };
}
