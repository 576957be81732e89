/** `--name value`, `--flag`, and positionals. Enough for an operator CLI; no dependency needed. */
export interface ParsedArgs {
  positionals: string[];
  flags: Map<string, string | true>;
}

export function parseArgs(argv: string[]): ParsedArgs {
  const positionals: string[] = [];
  const flags = new Map<string, string | true>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (!arg.startsWith("--")) {
      positionals.push(arg);
      continue;
    }
    const [name, inline] = arg.slice(2).split(/=(.*)/s, 2) as [string, string | undefined];
    if (inline !== undefined) flags.set(name, inline);
    else if (argv[i + 1] !== undefined && !argv[i + 1]!.startsWith("--")) flags.set(name, argv[++i]!);
    else flags.set(name, true);
  }
  return { positionals, flags };
}

export class UsageError extends Error {}

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
