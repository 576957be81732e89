import { parseArgs as parseNodeArgs, type ParseArgsConfig } from "node:util";

/** A command's arguments once parsed: its `--name value` and `--flag` options, and its positionals. */
export interface ParsedArgs {
  positionals: string[];
  flags: Map<string, string | true>;
}

export class UsageError extends Error {}

/**
 * The options a command takes, read from its usage line (the one place they are written): `--name VALUE` (or
 * `--name a|b`, `--name a,b`) takes a value, a bare `--flag` (`[--force]`, `| --clear`) takes none. The help text
 * and the parser cannot disagree.
 */
export function optionsOf(usage: string): NonNullable<ParseArgsConfig["options"]> {
  const options: NonNullable<ParseArgsConfig["options"]> = {};
  for (const [, name, value] of usage.matchAll(/--([a-z][a-z-]*)(?: ([^\s|[\]()<-]\S*))?/g))
    options[name!] = { type: value ? "string" : "boolean" };
  return options;
}

/**
 * The arguments after a command's words, by `node:util`'s parser with the command's own options (`optionsOf`):
 * `--name value` or `--name=value`, `--flag`, positionals. An option the command does not take, a value missing,
 * or one given twice is a usage error (exit 2), never a guess.
 */
export function parseArgs(argv: string[], usage: string): ParsedArgs {
  let parsed: ReturnType<typeof parseNodeArgs>;
  try {
    parsed = parseNodeArgs({ args: argv, options: optionsOf(usage), strict: true, allowPositionals: true });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  const flags = new Map<string, string | true>();
  for (const [name, value] of Object.entries(parsed.values)) {
    if (typeof value === "string") flags.set(name, value);
    else if (value === true) flags.set(name, true);
  }
  return { positionals: parsed.positionals, flags };
}

export function required(args: ParsedArgs, name: string): string {
  const value = args.flags.get(name);
  if (typeof value !== "string" || value === "") throw new UsageError(`--${name} is required`);
  return value;
}

export function optional(args: ParsedArgs, name: string): string | undefined {
  const value = args.flags.get(name);
  if (value === true) throw new UsageError(`--${name} needs a value`);
  return value;
}
