import type { HermesToolset } from "./client";

/**
 * Which tools a run asked from the panel may be offered (issue 19, decision 0021). Hermes's `/v1/runs`
 * takes no per-run tool list (0.18–0.19): a run of its API server gets the toolsets of config.yaml's
 * `platform_toolsets.api_server`, which `GET /v1/toolsets` reports. Ask Hermes is on only while that
 * report offers nothing but the allowed toolsets (by default the mnote plugin's, `mnote`).
 */

/** The toolsets a panel run may be offered when the operator names none (MNOTE_HERMES_ALLOWED_TOOLSETS). */
export const DEFAULT_ALLOWED_TOOLSETS: readonly string[] = ["mnote"];

/**
 * The line to put in Hermes's config.yaml. `no_mcp` keeps Hermes's MCP servers out of the API server's
 * runs: with a list that names no MCP server, Hermes adds every enabled one (tools_config.py
 * `_get_platform_tools`), and `GET /v1/toolsets` does not report MCP servers at all — the panel cannot
 * see them, so the configuration must exclude them.
 */
export function toolsetsConfigLine(allowed: readonly string[] = DEFAULT_ALLOWED_TOOLSETS): string {
  return `platform_toolsets: { api_server: [${[...allowed, "no_mcp"].join(", ")}] }`;
}

export type ToolsetVerdict = { ok: true } | { ok: false; problem: string };

/** Does Hermes offer a panel run exactly what it may use? If not, what to change, in Hermes's words. */
export function checkToolsets(report: readonly HermesToolset[], allowed: readonly string[]): ToolsetVerdict {
  const enabled = report.filter((toolset) => toolset.enabled).map((toolset) => toolset.name);
  const extra = enabled.filter((name) => !allowed.includes(name)).sort();
  const fix = `In Hermes's config.yaml (~/.hermes/config.yaml) set \`${toolsetsConfigLine(allowed)}\` and restart \`hermes gateway run\`.`;
  if (extra.length > 0) {
    const tools = report
      .filter((toolset) => extra.includes(toolset.name))
      .flatMap((toolset) => toolset.tools)
      .slice(0, 6);
    return {
      ok: false,
      problem:
        `Ask Hermes is off: Hermes would offer the model more than mnote's tools — the toolsets ${extra.join(", ")}` +
        `${tools.length ? ` (${tools.join(", ")}…)` : ""}, which act on the Hermes host for whoever asks. ${fix}`,
    };
  }
  if (!enabled.includes("mnote") && allowed.includes("mnote")) {
    return {
      ok: false,
      problem: `Ask Hermes is off: Hermes does not offer the mnote tools (is the mnote plugin installed and enabled?). ${fix}`,
    };
  }
  return { ok: true };
}
