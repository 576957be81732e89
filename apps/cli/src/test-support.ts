import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);
const BIN = join(import.meta.dirname, "..", "bin", "mnote.mjs");

/** Runs the real CLI as an operator would: a child process in `dir`, JSON on stdout, an exit code. */
export async function runCli(dir: string, argv: string[], options: { databaseUrl: string; stdin?: string }) {
  const child = run(process.execPath, [BIN, ...argv], {
    cwd: dir,
    env: { ...process.env, MNOTE_DATABASE_URL: options.databaseUrl, MNOTE_TOKEN: "" },
  });
  child.child.stdin!.end(options.stdin);
  try {
    const { stdout } = await child;
    return { code: 0, json: JSON.parse(stdout) };
  } catch (error) {
    const e = error as { code: number; stdout: string };
    return { code: e.code, json: JSON.parse(e.stdout) };
  }
}
