import { randomBytes } from "node:crypto";
import { mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { build, type Plugin } from "esbuild";

/**
 * A process entry (a `bin/*.mjs` that registers tsx, or a `.ts` script) compiled once into one ES module, for test
 * suites that start it dozens of times. tsx compiles with esbuild too; what a start through tsx adds is its loader
 * thread and resolver hooks, about a CPU-second per process on this repository, which a suite of 30 processes pays
 * 30 times. The workspace's TypeScript is bundled; every package from node_modules stays external, imported from
 * the path it is installed at (native modules, WASM and package assets load as they do under tsx). `tsx/esm/api`'s
 * `register()` becomes a no-op: there is nothing left to compile. Each test process compiles its own copy.
 */
const compiled = new Map<string, Promise<string>>();

export function compiledEntry(entry: string): Promise<string> {
  let out = compiled.get(entry);
  if (!out) compiled.set(entry, (out = compile(entry)));
  return out;
}

const noTsx: Plugin = {
  name: "no tsx: the bundle is already JavaScript",
  setup(b) {
    b.onResolve({ filter: /^tsx\/esm\/api$/ }, () => ({ path: "tsx-register", namespace: "no-tsx" }));
    b.onLoad({ filter: /.*/, namespace: "no-tsx" }, () => ({
      contents: "export function register() {}",
      loader: "js",
    }));
  },
};

const installedPackagesExternal: Plugin = {
  name: "node_modules load from where they are installed",
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, async (args) => {
      const data = args.pluginData as { inner?: boolean } | undefined;
      if (data?.inner || args.path.startsWith("@mnote/") || args.path.startsWith("node:")) return undefined;
      const resolved = await b.resolve(args.path, {
        kind: args.kind,
        resolveDir: args.resolveDir,
        importer: args.importer,
        pluginData: { inner: true },
      });
      if (resolved.errors.length > 0) return { errors: resolved.errors };
      // A Node built-in named without `node:` (`fs`) resolves to itself.
      return { path: resolved.path, external: true };
    });
  },
};

async function compile(entry: string): Promise<string> {
  const dir = join(tmpdir(), `mnote-compiled-${process.pid}-${randomBytes(4).toString("hex")}`);
  mkdirSync(dir, { recursive: true });
  const outfile = join(dir, `${basename(entry).replace(/\.[cm]?[jt]s$/, "")}.mjs`);
  await build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    sourcemap: "inline",
    logLevel: "warning",
    plugins: [noTsx, installedPackagesExternal],
  });
  return outfile;
}
