import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { DEFAULT_DATABASE_URL } from "@mnote/kernel";
import { generateHermesSchemas, PLUGIN_SOURCE_DIR } from "./generate-schemas";

export const BRIDGE_BIN = fileURLToPath(new URL("../../bin/mnote-bridge.mjs", import.meta.url));

/** Hermes keeps user plugins in `$HERMES_HOME/plugins` (default `~/.hermes/plugins`). */
export function defaultPluginDir(hermesHome: string | undefined): string {
  return join(hermesHome || join(homedir(), ".hermes"), "plugins", "mnote");
}

/**
 * `mnote-bridge hermes install [--dir DIR]`: copy the plugin (plugin.yaml, the Python
 * modules) to DIR, replacing an older copy, with tool_schemas.json generated from the
 * contract this bridge runs; the repository's own files are left as they are.
 */
export function installHermesPlugin(options: { dir?: string; hermesHome?: string } = {}): { dir: string } {
  const dir = resolve(options.dir ?? defaultPluginDir(options.hermesHome));
  if (existsSync(dir) && readdirSync(dir).length > 0) {
    // Replace an older copy of this plugin, never anything else someone pointed --dir at.
    const manifest = join(dir, "plugin.yaml");
    if (!existsSync(manifest) || !/^name:\s*mnote\s*$/m.test(readFileSync(manifest, "utf8"))) {
      throw new Error(`${dir} exists and is not the mnote plugin; refusing to overwrite it`);
    }
    rmSync(dir, { recursive: true, force: true });
  }
  mkdirSync(dir, { recursive: true });
  cpSync(PLUGIN_SOURCE_DIR, dir, {
    recursive: true,
    filter: (source) => !/(^|[\\/])(__pycache__|\.pytest_cache)([\\/]|$)|\.pyc$/.test(source),
  });
  generateHermesSchemas(dir);
  return { dir };
}

export function installMessage(dir: string, bridgeUrl = "http://127.0.0.1:4100"): string {
  return [
    `Installed the mnote Hermes plugin to ${dir}`,
    "",
    "Next steps:",
    "  1. Enable it (Hermes plugins are opt-in). mnote replaces no built-in tool, so answer N when",
    "     Hermes asks whether it may:",
    "       hermes plugins enable mnote --no-allow-tool-override",
    "  2. Give Hermes the bridge URL and an mnote token (shell or ~/.hermes/.env):",
    `       MNOTE_BRIDGE_URL=${bridgeUrl}`,
    "       MNOTE_TOKEN=<a token issued by mnote for this agent>",
    "  3. Run the bridge beside mnote:",
    "       mnote-bridge serve",
    "",
    'The tools appear in Hermes in the toolset "mnote": mnote_page_get, mnote_page_save, …',
  ].join("\n");
}

/** `mnote-bridge hermes config`: the `mcp_servers` block for `~/.hermes/config.yaml`. */
export function hermesMcpConfig(options: { url?: string; databaseUrl?: string } = {}): string {
  const url = options.url ?? "http://127.0.0.1:4100/mcp";
  const databaseUrl = options.databaseUrl ?? DEFAULT_DATABASE_URL;
  // Hermes starts stdio servers from its own directory: give the database an absolute path.
  const absoluteDb =
    databaseUrl.startsWith("file:") && databaseUrl !== "file::memory:"
      ? `file:${resolve(databaseUrl.slice("file:".length))}`
      : databaseUrl;
  return [
    "# ~/.hermes/config.yaml: the mnote tools through MCP (use either this or the plugin's tools, not both).",
    "# Hermes's own ids reach mnote's audit only with the mnote plugin enabled: without MNOTE_BRIDGE_URL its",
    "# tools stay hidden and it only adds Hermes's session, turn and tool-call ids to these MCP calls.",
    "# MNOTE_TOKEN must be set in Hermes's environment (~/.hermes/.env); ${MNOTE_TOKEN} is filled at connect time.",
    "mcp_servers:",
    "  mnote:",
    `    url: "${url}"`,
    "    headers:",
    '      Authorization: "Bearer ${MNOTE_TOKEN}"',
    "      # Results in the form Hermes reads right: the envelope once, successes read as successes.",
    '      X-Mnote-Result-Form: "hermes"',
    "    timeout: 120",
    "",
    "# Or with OAuth, no token to paste (the bridge started with MNOTE_BRIDGE_OAUTH_ISSUER): replace `headers` by",
    "# `auth: oauth` but keep the result form, and run `hermes mcp login mnote` once before the gateway starts",
    "# (a gateway runs without a browser and refuses the sign-in flow). Without the header, Hermes 0.21 drops a",
    '# refusal\'s structuredContent and hands the model {"result": <its text>}, which its failure check misses.',
    "# mcp_servers:",
    "#   mnote:",
    `#     url: "${url}"`,
    "#     auth: oauth",
    "#     headers:",
    '#       X-Mnote-Result-Form: "hermes"',
    "#     timeout: 120",
    "",
    "# Or let Hermes spawn the bridge over stdio instead (replace the entry above):",
    "# mcp_servers:",
    "#   mnote:",
    `#     command: "${process.execPath}"`,
    `#     args: ["${BRIDGE_BIN}", "mcp", "--stdio"]`,
    "#     env:",
    '#       MNOTE_TOKEN: "${MNOTE_TOKEN}"',
    '#       MNOTE_RESULT_FORM: "hermes"',
    `#       MNOTE_DATABASE_URL: "${absoluteDb}"`,
    "#     timeout: 120",
    "",
  ].join("\n");
}
