import { openKernel, type SqlKernel } from "@mnote/kernel";
import { ConfigError, ConfigReader, toolsSettingsFromEnv } from "@mnote/tools";
import { parseArgs, UsageError } from "./args";
import type { CliIo, Command } from "./command";
import { adminCommands } from "./commands/admin";
import { callCommand } from "./commands/call";
import { demoCommand } from "./commands/demo";
import { initCommand } from "./commands/init";
import { inspectCommands } from "./commands/inspect";
import { migrateDataCommand } from "./commands/migrate-data";

export const COMMANDS: Command[] = [initCommand, ...adminCommands, demoCommand, callCommand, ...inspectCommands, migrateDataCommand];

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

function usage(): string {
  return ["usage:", ...COMMANDS.map((c) => `  ${c.usage}`), "", "MNOTE_DATABASE_URL: file:PATH (default file:./.mnote/mnote.db) or postgres://…"].join("\n");
}

/** JSON on stdout; exit 0 on success, 1 when the action failed, 2 on usage errors. */
export async function main(argv: string[], io: CliIo = { stdin: readStdin, env: process.env }): Promise<number> {
  const command = COMMANDS.filter((c) => c.words.every((w, i) => argv[i] === w)).sort((a, b) => b.words.length - a.words.length)[0];
  if (!command || argv.includes("--help")) {
    process.stderr.write(`${usage()}\n`);
    return command || argv.includes("--help") ? 0 : 2;
  }
  let kernel: SqlKernel | undefined;
  const open = async () => (kernel ??= await openKernel(io.env.MNOTE_DATABASE_URL));
  try {
    // The configuration is checked before any command runs: a bad value is a usage error, not a failed write later.
    const config = new ConfigReader(io.env);
    const settings = toolsSettingsFromEnv(config);
    config.done();
    const { output, exitCode = 0 } = await command.run({ args: parseArgs(argv.slice(command.words.length)), kernel: open, io, settings });
    process.stdout.write(`${JSON.stringify(output, null, 2)}\n`);
    return exitCode;
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stdout.write(`${JSON.stringify({ error: error.message, problems: error.problems })}\n`);
      return 2;
    }
    if (error instanceof UsageError) {
      process.stdout.write(`${JSON.stringify({ error: error.message, usage: command.usage })}\n`);
      return 2;
    }
    const message = error instanceof Error ? error.message : String(error);
    process.stdout.write(`${JSON.stringify({ error: message })}\n`);
    return 1;
  } finally {
    await kernel?.close();
  }
}
