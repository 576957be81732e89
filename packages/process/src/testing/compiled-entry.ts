import { randomBytes } from "node:crypto";
import { copyFileSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { compileEntry } from "../../compile/compile-entry.mjs";

/**
 * A process entry (a `.ts` entry such as the CLI's `src/bin.ts`, or a script) compiled once into one ES module, for
 * test suites that start it dozens of times, by the same recipe the bins' build uses (`compile/compile-entry.mjs`).
 * Each test process compiles its own copy, in its own temporary directory.
 */
const compiled = new Map<string, Promise<string>>();

export function compiledEntry(entry: string): Promise<string> {
  let out = compiled.get(entry);
  if (!out) {
    const outfile = join(scratch(), `${basename(entry).replace(/\.[cm]?[jt]s$/, "")}.mjs`);
    compiled.set(entry, (out = compileEntry(entry, outfile)));
  }
  return out;
}

/**
 * A package's real bin (`bin/x.mjs`, which runs `../dist/<compiled>`) with its build beside it, in a temporary copy
 * of the package's layout: what an operator runs after `pnpm build`, without writing the checkout's own `dist/`
 * (a turbo build may be writing it at the same time).
 */
export async function builtBin(bin: string, entry: string, compiledName: string): Promise<string> {
  const root = scratch();
  mkdirSync(join(root, "bin"));
  const copy = join(root, "bin", basename(bin));
  copyFileSync(bin, copy);
  await compileEntry(entry, join(root, "dist", compiledName));
  return copy;
}

function scratch(): string {
  const dir = join(tmpdir(), `mnote-compiled-${process.pid}-${randomBytes(4).toString("hex")}`);
  mkdirSync(dir, { recursive: true });
  return dir;
}
