import { execFileSync, spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { compiledEntry } from "@mnote/process/testing";
import { beforeAll, describe, expect, it } from "vitest";

/**
 * Issue 20 item 6: the Hermes plugin is standard library only and runs on Python 3.11 through 3.14. Its own
 * unittest suite (against a real bridge) runs here under every one of those interpreters that is installed; an
 * absent one is skipped, and the skip says so. What 3.13 and 3.14 removed from the standard library is named
 * below and must not appear in the plugin or its tests.
 */
const pluginRoot = fileURLToPath(new URL("../../hermes-plugin/", import.meta.url));
const bridgeRoot = fileURLToPath(new URL("../../", import.meta.url));
const VERSIONS = ["3.11", "3.12", "3.13", "3.14"] as const;

function interpreter(version: string): string | null {
  const found = spawnSync("python" + version, ["-c", "import sys; print(sys.version_info[:2])"], { encoding: "utf8" });
  return found.status === 0 ? `python${version}` : null;
}

const pythonFiles = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? entry.name === "__pycache__"
        ? []
        : pythonFiles(join(dir, entry.name))
      : entry.name.endsWith(".py")
        ? [join(dir, entry.name)]
        : [],
  );

describe("the Hermes plugin on Python 3.11 to 3.14", () => {
  // The suite's bridge (`hermes install`, `serve`) and its two test scripts start from copies compiled once
  // (compiledEntry, the recipe `pnpm build` uses for the bin; tests/support.py).
  const env: Record<string, string> = { ...(process.env as Record<string, string>) };
  beforeAll(async () => {
    const compiled = await Promise.all(
      ["src/main.ts", "scripts/seed-test-world.mjs", "scripts/reject-test-proposal.mjs"].map((entry) =>
        compiledEntry(join(bridgeRoot, entry)),
      ),
    );
    [env.MNOTE_TEST_BRIDGE_BIN, env.MNOTE_TEST_SEED_SCRIPT, env.MNOTE_TEST_REJECT_SCRIPT] = compiled as [
      string,
      string,
      string,
    ];
  });

  for (const version of VERSIONS) {
    const python = interpreter(version);
    it.skipIf(!python)(
      `its unittest suite passes on python${version}${python ? "" : " (not installed here: skipped)"}`,
      () => {
        // Throws (and fails the test) on a non-zero exit, with the suite's output in the message.
        const output = execFileSync(
          python!,
          [
            "-W",
            "error::DeprecationWarning",
            "-m",
            "unittest",
            "discover",
            "-s",
            "hermes-plugin/tests",
            "-t",
            "hermes-plugin",
          ],
          { cwd: bridgeRoot, env, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], timeout: 240_000 },
        );
        expect(output).toBe("");
      },
      300_000,
    );
  }

  it("uses nothing Python 3.13 or 3.14 removed, and nothing outside the standard library", () => {
    const removed = [
      // 3.13 (PEP 594 and others)
      /^\s*(?:import|from)\s+(?:aifc|audioop|cgi|cgitb|chunk|crypt|imghdr|mailcap|msilib|nis|nntplib|ossaudiodev|pipes|sndhdr|spwd|sunau|telnetlib|uu|xdrlib|lib2to3)\b/m,
      /\blocale\.resetlocale\b/,
      // 3.14
      /\bast\.(?:Num|Str|Bytes|NameConstant|Ellipsis)\b/,
      /\bpkgutil\.(?:find_loader|get_loader)\b/,
      /\bsqlite3\.(?:version|version_info)\b/,
      /\b(?:Fancy)?URLopener\b/,
      /\btyping\.ByteString\b/,
      /\basyncio\.(?:get_event_loop|set_child_watcher|get_child_watcher)\b/,
      /\bimportlib\.abc\.(?:ResourceReader|Traversable|TraversableResources)\b/,
    ];
    const files = pythonFiles(pluginRoot);
    expect(files.length).toBeGreaterThan(3);
    for (const file of files) {
      const source = readFileSync(file, "utf8");
      for (const pattern of removed) expect(source, `${file} uses ${pattern}`).not.toMatch(pattern);
    }
    // Standard library only: every import, at any depth, is in sys.stdlib_module_names (or the plugin's own
    // package) — but Hermes's own `agent` package, imported lazily under a guard (settings.py: its secret scope,
    // when the plugin runs inside Hermes; the tests' stand-in of it), and the Hermes stand-in's `server` and
    // `tool_search` (e2e/hermes-standin, standard library only), which test_tool_search.py drives.
    const modules = new Set(
      files.flatMap((file) =>
        [...readFileSync(file, "utf8").matchAll(/^\s*(?:import|from)\s+([A-Za-z_]\w*)/gm)].map((m) => m[1]!),
      ),
    );
    const python = VERSIONS.map(interpreter).find(Boolean) ?? "python3";
    const stdlib = new Set(
      execFileSync(python, ["-c", "import sys; print('\\n'.join(sorted(sys.stdlib_module_names)))"], {
        encoding: "utf8",
      }).split("\n"),
    );
    const foreign = [...modules].filter(
      (name) => !stdlib.has(name) && !["mnote", "tests", "__future__", "agent", "server", "tool_search"].includes(name),
    );
    expect(foreign).toEqual([]);
  });

  it("plugin.yaml keeps manifest version 1 and declares the Hermes it was checked with", () => {
    const manifest = readFileSync(join(pluginRoot, "mnote", "plugin.yaml"), "utf8");
    expect(manifest).toMatch(/^manifest_version: 1$/m);
    expect(manifest).toMatch(/^requires_hermes: ">=0\.18"$/m);
  });

  it("plugin.yaml carries license and tags, and no literal path of Hermes's secrets file (0.21's install scanner flags it)", () => {
    const manifest = readFileSync(join(pluginRoot, "mnote", "plugin.yaml"), "utf8");
    expect(manifest).toMatch(/^license: \S+$/m);
    expect(manifest).toMatch(/^tags: \[.+\]$/m);
    expect(manifest).not.toContain("~/.hermes/.env");
  });
});
