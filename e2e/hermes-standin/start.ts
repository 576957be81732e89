import { type ChildProcess, spawn } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const HERE = dirname(fileURLToPath(import.meta.url));
/** The project's real Hermes plugin, which the stand-in registers and calls as Hermes does. */
const PLUGIN_DIR = join(HERE, "../../apps/hermes-bridge/hermes-plugin");

export interface HermesStandIn {
  url: string;
  pid: number;
  stop: () => Promise<void>;
}

/**
 * Start the stand-in for Hermes's API server (server.py, Python standard library) on a port
 * chosen before the panel starts (the panel reads MNOTE_HERMES_URL at start), with the mnote
 * agent token its plugin acts with.
 */
export async function startHermesStandIn(options: {
  port: number;
  key: string;
  bridgeUrl: string;
  token: string;
  /** A file naming the toolsets Hermes's API server would offer (read on every request); absent: mnote only. */
  toolsetsFile?: string;
  /**
   * Which Hermes API server to answer as (server.py `--hermes`): 0.18 (0.18.2–0.19.0) or 0.21 (0.21.3). Default: the
   * environment's MNOTE_STANDIN_HERMES, else 0.18, so a flow runs in both modes with `MNOTE_STANDIN_HERMES=0.21`.
   */
  hermesVersion?: "0.18" | "0.21";
  /** 0.21: `tools.tool_search.enabled` of the profile (default `auto`, as Hermes's; `off` is what mnote documents). */
  toolSearch?: "auto" | "off";
  /** 0.21: serve as this profile of a multiplexed gateway, at `/p/<profile>/…` only; `url` then ends with that path. */
  profile?: string;
}): Promise<HermesStandIn> {
  const version = options.hermesVersion ?? (process.env.MNOTE_STANDIN_HERMES === "0.21" ? "0.21" : "0.18");
  const child: ChildProcess = spawn(
    process.env.PYTHON ?? "python3",
    [
      join(HERE, "server.py"),
      "--port",
      String(options.port),
      "--key",
      options.key,
      "--plugin",
      PLUGIN_DIR,
      ...(options.toolsetsFile ? ["--toolsets-file", options.toolsetsFile] : []),
      "--hermes",
      version,
      ...(options.toolSearch ? ["--tool-search", options.toolSearch] : []),
      ...(options.profile ? ["--profile", options.profile] : []),
    ],
    {
      env: {
        ...process.env,
        MNOTE_BRIDGE_URL: options.bridgeUrl,
        MNOTE_TOKEN: options.token,
        PYTHONDONTWRITEBYTECODE: "1",
      },
      stdio: ["ignore", "ignore", "inherit"],
    },
  );
  // No python3 on this machine: say so instead of crashing the runner with an unhandled spawn error.
  let spawnError: Error | null = null;
  child.once("error", (error) => (spawnError = error));
  const url = `http://127.0.0.1:${options.port}${options.profile ? `/p/${options.profile}` : ""}`;
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGTERM");
    await exited;
  };
  const deadline = Date.now() + 20_000;
  for (;;) {
    if (spawnError)
      throw new Error(
        `the Hermes stand-in needs Python 3 (${process.env.PYTHON ?? "python3"}): ${(spawnError as Error).message}`,
      );
    if (child.exitCode !== null) throw new Error(`the Hermes stand-in exited with code ${child.exitCode}`);
    try {
      if ((await fetch(`${url}/health`)).ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`the Hermes stand-in did not answer ${url}/health within 20 s`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { url, pid: child.pid!, stop };
}
