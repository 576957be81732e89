import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { builtBin, compiledEntry } from "@mnote/process/testing";

const run = promisify(execFile);
const BIN = join(import.meta.dirname, "..", "bin", "mnote.mjs");
const ENTRY = join(import.meta.dirname, "bin.ts");

/** `bin/mnote.mjs` itself over its build (`pnpm build`'s recipe), in a temporary copy of the package's layout. */
let built: Promise<string> | undefined;
export const builtCli = () => (built ??= builtBin(BIN, ENTRY, "mnote.mjs"));

/**
 * Runs the CLI as an operator would: a child process in `dir`, JSON on stdout, an exit code. The process runs
 * `src/bin.ts` compiled once per test file (`compiledEntry`); `{ bin: await builtCli() }` runs `bin/mnote.mjs`
 * itself over its build, as `pnpm mnote` does.
 */
export async function runCli(
  dir: string,
  argv: string[],
  options: { databaseUrl: string; stdin?: string; bin?: string },
) {
  const bin = options.bin ?? (await compiledEntry(ENTRY));
  const child = run(process.execPath, [bin, ...argv], {
    cwd: dir,
    env: { ...process.env, MNOTE_DATABASE_URL: options.databaseUrl, MNOTE_TOKEN: "" },
  });
  child.child.stdin!.end(options.stdin);
  const parse = (stdout: string) => {
    try {
      return JSON.parse(stdout);
    } catch {
      return null; // `--help` prints text
    }
  };
  try {
    const { stdout } = await child;
    return { code: 0, json: parse(stdout), stdout };
  } catch (error) {
    const e = error as { code: number; stdout: string };
    return { code: e.code, json: parse(e.stdout), stdout: e.stdout };
  }
}

/**
 * The same CLI (`main`, argument parsing, commands, JSON output) in this test's process: for suites that run
 * dozens of commands, where a child process each would spend its time starting Node and tsx.
 */
export async function runCliInProcess(argv: string[], options: { databaseUrl: string; stdin?: string }) {
  const { main } = await import("./main");
  let stdout = "";
  const code = await main(argv, {
    stdin: async () => options.stdin ?? "",
    env: { MNOTE_DATABASE_URL: options.databaseUrl },
    stdout: (text) => void (stdout += text),
    stderr: () => undefined,
  });
  let json: any = null;
  try {
    json = JSON.parse(stdout);
  } catch {
    // `--help` prints text
  }
  return { code, json, stdout };
}
