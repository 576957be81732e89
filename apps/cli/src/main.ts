import { DEFAULT_DATABASE_URL, openKernel, type SqlKernel } from "@mnote/kernel";
import { ConfigError } from "@mnote/process";
import { parseArgs, UsageError } from "./args";
import type { CliIo, Command } from "./command";
import { readCliConfig } from "./config";
import { adminCommands } from "./commands/admin";
import { callCommand } from "./commands/call";
import { demoCommand } from "./commands/demo";
import { initCommand } from "./commands/init";
import { inspectCommands } from "./commands/inspect";
import { migrateDataCommand } from "./commands/migrate-data";
import { auditExportCommand } from "./commands/audit-export";

export const COMMANDS: Command[] = [
  initCommand,
  ...adminCommands,
  demoCommand,
  callCommand,
  ...inspectCommands,
  auditExportCommand,
  migrateDataCommand,
];

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

function usage(): string {
  return [
    "usage:",
    ...COMMANDS.map((c) => `  ${c.usage}`),
    "",
    "exit codes: 0 done, 1 the action failed, 2 usage error, 3 a `call` held for a person's approval",
    `MNOTE_DATABASE_URL: file:PATH (default ${DEFAULT_DATABASE_URL}) or postgres://… (MNOTE_PG_POOL_MAX, MNOTE_PG_STATEMENT_TIMEOUT_MS)`,
  ].join("\n");
}

/** `mnote admin member remove --help`: that command; `mnote admin --help`: every command that starts so. */
function help(words: string[], command: Command | undefined): string {
  const matching = command ? [command] : COMMANDS.filter((c) => words.every((w, i) => c.words[i] === w));
  if (matching.length === 0) return usage();
  return matching.map((c) => `${c.usage}\n    ${c.help}`).join("\n");
}

const PROCESS_IO: CliIo = {
  stdin: readStdin,
  stdout: (text) => void process.stdout.write(text),
  stderr: (text) => void process.stderr.write(text),
};

/** JSON on stdout; exit 0 on success, 1 when the action failed, 2 on usage errors (and 3: `call` held, call.ts). */
export async function main(argv: string[], io: CliIo = PROCESS_IO): Promise<number> {
  const command = COMMANDS.filter((c) => c.words.every((w, i) => argv[i] === w)).sort(
    (a, b) => b.words.length - a.words.length,
  )[0];
  if (argv.includes("--help")) {
    io.stdout(`${help(argv.slice(0, argv.indexOf("--help")), command)}\n`);
    return 0;
  }
  if (!command) {
    io.stderr(`${usage()}\n`);
    return 2;
  }
  let kernel: SqlKernel | undefined;
  try {
    // The configuration is checked before any command runs: a bad value is a usage error, not a failed write later.
    const config = readCliConfig(io.env);
    const open = async () => (kernel ??= await openKernel(config.database.url, config.database.options));
    const { output, exitCode = 0 } = await command.run({
      args: parseArgs(argv.slice(command.words.length), command.usage),
      kernel: open,
      io,
      config,
    });
    if (output !== undefined) io.stdout(`${JSON.stringify(output, null, 2)}\n`);
    return exitCode;
  } catch (error) {
    if (error instanceof ConfigError) {
      io.stdout(`${JSON.stringify({ error: error.message, problems: error.problems })}\n`);
      return 2;
    }
    if (error instanceof UsageError) {
      io.stdout(`${JSON.stringify({ error: error.message, usage: command.usage })}\n`);
      return 2;
    }
    const message = error instanceof Error ? error.message : String(error);
    io.stdout(`${JSON.stringify({ error: message })}\n`);
    return 1;
  } finally {
    await kernel?.close();
  }
}
