import type { SqlKernel } from "@mnote/kernel";
import type { Env } from "@mnote/process";
import type { ParsedArgs } from "./args";
import type { CliConfig } from "./config";

export interface CliIo {
  stdin: () => Promise<string>;
  /** The environment the configuration is read from (config.ts); the process's own when absent. */
  env?: Env;
  /** Where JSON and help text go (process.stdout unless a test runs the CLI in its own process). */
  stdout: (text: string) => void;
  stderr: (text: string) => void;
}

/** One CLI command: its words (`admin user create`), usage line and what it does. */
export interface Command {
  words: string[];
  usage: string;
  /** One or two sentences for `--help`: what the command does and when it takes effect. */
  help: string;
  /**
   * Commands that open the database get the kernel; `run` returns the JSON to print and an exit code
   * (`output: undefined` prints nothing: the command wrote its own lines, as `audit export` writes NDJSON).
   */
  run(input: {
    args: ParsedArgs;
    kernel: () => Promise<SqlKernel>;
    io: CliIo;
    /** The CLI's configuration, read from the environment and checked once at start. */
    config: CliConfig;
  }): Promise<{ output: unknown; exitCode?: number }>;
}
