// How a process entry (the CLI's `src/bin.ts`, the bridge's `src/main.ts`, a test's `.ts` script) becomes one ES
// module Node runs as it is: the bins run this output (`pnpm build`, which `npm start` runs), and test suites that
// start a process dozens of times compile it the same way once (`@mnote/process/testing` `compiledEntry`). Plain
// JavaScript so that a build step needs nothing but Node and esbuild: there is no TypeScript compiler at run time.
import { readFile } from "node:fs/promises";
import { dirname } from "node:path";
import { pathToFileURL } from "node:url";
import { build } from "esbuild";

/** An entry that still registers tsx (a script written for it) gets a no-op: there is nothing left to compile. */
const noTsx = {
  name: "no tsx: the bundle is already JavaScript",
  setup(b) {
    b.onResolve({ filter: /^tsx\/esm\/api$/ }, () => ({ path: "tsx-register", namespace: "no-tsx" }));
    b.onLoad({ filter: /.*/, namespace: "no-tsx" }, () => ({
      contents: "export function register() {}",
      loader: "js",
    }));
  },
};

/**
 * The workspace's TypeScript is bundled; every package from node_modules stays external, imported from the path it
 * is installed at (native modules, WASM and package assets load as they do from source).
 */
const installedPackagesExternal = {
  name: "node_modules load from where they are installed",
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, async (args) => {
      const data = args.pluginData;
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
 * bridge's plugin sources) would point elsewhere, and a "run as a script" check
 * (`process.argv[1] === fileURLToPath(import.meta.url)`) would be true inside the bundle, so a module's script
 * block would run on every start. Each workspace module's `import.meta` fields become its own file's.
 */
const ownImportMeta = {
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

/**
 * Compile `entry` into `outfile`, one ES module for Node 20. The output names the installed packages by their paths
 * on this machine: it runs in the checkout it was built in (as `.next` does), never shipped elsewhere.
 */
export async function compileEntry(entry, outfile) {
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
