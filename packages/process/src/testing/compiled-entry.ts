import { randomBytes } from "node:crypto";
import { mkdirSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { build, type Plugin } from "esbuild";

/**
 * A process entry (a `bin/*.mjs` that registers tsx, or a `.ts` script) compiled once into one ES module, for test
 * suites that start it dozens of times. tsx compiles with esbuild too; what a start through tsx adds is its loader
 * thread and resolver hooks, about a CPU-second per process on this repository, which a suite of 30 processes pays
 * 30 times. The workspace's TypeScript is bundled; every package from node_modules stays external, imported from
 * the path it is installed at (native modules, WASM and package assets load as they do under tsx). `tsx/esm/api`'s
 * `register()` becomes a no-op: there is nothing left to compile. Each module keeps its own `import.meta.url`,
 * `.dirname` and `.filename` (`ownImportMeta`). Each test process compiles its own copy.
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

/**
 * In a bundle every module's `import.meta.url` would be the bundle's: a path found next to a source file (the
 * bridge's plugin sources) would point into the temporary directory, and a "run as a script" check
 * (`process.argv[1] === fileURLToPath(import.meta.url)`) would be true inside the bundle, so a module's script
 * block would run on every start (the bridge wrote `tool_schemas.json` into a directory named after its command,
 * and the path to stdout, an MCP stdio channel). Each workspace module's `import.meta` fields become its own
 * file's, as they are under tsx.
 */
const ownImportMeta: Plugin = {
  name: "each module keeps its own import.meta.url",
  setup(b) {
    b.onLoad({ filter: /\.[cm]?[jt]sx?$/ }, async (args) => {
      if (args.path.includes("/node_modules/")) return undefined;
      const source = await readFile(args.path, "utf8");
      if (!source.includes("import.meta")) return undefined;
      const contents = source
        .replaceAll(/\bimport\.meta\.url\b/g, JSON.stringify(pathToFileURL(args.path).href))
        .replaceAll(/\bimport\.meta\.dirname\b/g, JSON.stringify(dirname(args.path)))
        .replaceAll(/\bimport\.meta\.filename\b/g, JSON.stringify(args.path));
      const extension = args.path.slice(args.path.lastIndexOf(".") + 1);
      const loader = extension === "tsx" ? "tsx" : extension.endsWith("ts") ? "ts" : "js";
      return { contents, loader };
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
    plugins: [noTsx, installedPackagesExternal, ownImportMeta],
  });
  return outfile;
}
