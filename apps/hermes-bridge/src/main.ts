import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { DEFAULT_DATABASE_URL, openKernel } from "@mnote/kernel";
import { ConfigError, DEFAULT_RATE_LIMIT } from "@mnote/process";
import { readHermesConfig, readServeConfig, readStdioConfig } from "./config";
import { generateHermesSchemas } from "./hermes/generate-schemas";
import { hermesMcpConfig, installHermesPlugin, installMessage } from "./hermes/install";
import { startBridge } from "./http/server";
import { createLogger } from "./logging";
import { runStdio } from "./mcp/stdio";

const USAGE = `mnote-bridge: the mnote.* tools for agents (HTTP tool endpoint, MCP, Hermes plugin)

Usage:
  mnote-bridge serve [--port 4100] [--host 127.0.0.1]
        HTTP: /v1/tools, /v1/tools/{name}, /v1/whoami, /mcp (Streamable HTTP), /healthz.
        Demo data and tokens: npm start at the repository root, or pnpm mnote demo.
  mnote-bridge mcp --stdio             MCP over stdin/stdout; the token comes from MNOTE_TOKEN.
  mnote-bridge hermes install [--dir DIR] [--url BRIDGE_URL]
        install the Hermes plugin (default ~/.hermes/plugins/mnote) and print the next steps
  mnote-bridge hermes config [--url URL]    print the mcp_servers block for ~/.hermes/config.yaml
  mnote-bridge hermes schemas [DIR]         regenerate hermes-plugin/mnote/tool_schemas.json

Environment: MNOTE_DATABASE_URL (default ${DEFAULT_DATABASE_URL}), MNOTE_PG_POOL_MAX, MNOTE_PG_STATEMENT_TIMEOUT_MS,
MNOTE_TOKEN (stdio), HERMES_HOME (hermes install),
MNOTE_RESULT_FORM (stdio: "hermes" for Hermes Agent; over HTTP the X-Mnote-Result-Form header),
MNOTE_BRIDGE_PORT, MNOTE_BRIDGE_HOST, MNOTE_BRIDGE_BODY_LIMIT, MNOTE_BRIDGE_RATE_LIMIT_RPS,
MNOTE_BRIDGE_RATE_LIMIT_BURST, MNOTE_BRIDGE_ALLOWED_HOSTS, MNOTE_BRIDGE_ALLOWED_ORIGINS,
MNOTE_BRIDGE_CORS_ORIGINS, MNOTE_BRIDGE_AUTH_FAILURES, MNOTE_BRIDGE_AUTH_FAILURE_WINDOW_SECONDS,
MNOTE_BRIDGE_TRUSTED_PROXIES,
MNOTE_BRIDGE_HEADERS_TIMEOUT_SECONDS, MNOTE_BRIDGE_REQUEST_TIMEOUT_SECONDS, MNOTE_BRIDGE_LOG_LEVEL,
MNOTE_IDEMPOTENCY_TTL_HOURS, MNOTE_HOUSEKEEPING_INTERVAL_SECONDS. Every one is checked at start: a bad value stops the bridge (exit 2).
`;

function fail(message: string): never {
  process.stderr.write(`mnote-bridge: ${message}\n\n${USAGE}`);
  process.exit(2);
}

async function serve(argv: string[]) {
  const { values } = parseArgs({
    args: argv,
    options: { port: { type: "string" }, host: { type: "string" } },
  });
  // Every setting is read and checked here, once, before anything opens (a bad one stops the start).
  const config = readServeConfig(values);
  const kernel = await openKernel(config.database.url, config.database.options);
  const bridge = await startBridge({
    kernel,
    port: config.port,
    host: config.host,
    logger: createLogger({ level: config.logLevel }),
    ...config.settings,
    housekeeping: config.housekeeping,
    env: {},
  });
  const lines = [
    `mnote-bridge listening on ${bridge.url}`,
    `  tools: GET ${bridge.url}/v1/tools · POST ${bridge.url}/v1/tools/{name}`,
    `  mcp:   ${bridge.url}/mcp (Streamable HTTP)`,
  ];
  process.stdout.write(`${lines.join("\n")}\n`);
  const stop = async () => {
    await bridge.close();
    await kernel.close();
    process.exit(0);
  };
  // Nothing awaits a signal handler; a failed close surfaces as an unhandled rejection and a non-zero exit.
  process.once("SIGINT", () => void stop());
  process.once("SIGTERM", () => void stop());
}

async function mcp(argv: string[]) {
  const { values } = parseArgs({ args: argv, options: { stdio: { type: "boolean", default: false } } });
  if (!values.stdio) fail("mcp needs --stdio (the HTTP transport is served by `mnote-bridge serve` at /mcp)");
  // stdout carries the protocol: every log line goes to stderr.
  const config = readStdioConfig();
  const logger = createLogger({ destination: process.stderr, level: config.logLevel });
  const kernel = await openKernel(config.database.url, config.database.options);
  const { closed } = await runStdio({
    kernel,
    logger,
    token: config.token,
    rateLimit: config.settings.rateLimit === undefined ? DEFAULT_RATE_LIMIT : config.settings.rateLimit,
    toolsSettings: config.settings.tools,
    resultForm: config.resultForm,
  });
  const stop = async () => {
    // A call's log line follows its answer by one turn of the event loop (logToolCall's afterAnswer): let the lines
    // of answers already written go out before the process ends.
    await new Promise((resolve) => setImmediate(resolve));
    await kernel.close();
    process.exit(0);
  };
  void closed.then(stop);
  // Nothing awaits a signal handler; a failed close surfaces as an unhandled rejection and a non-zero exit.
  process.once("SIGINT", () => void stop());
  process.once("SIGTERM", () => void stop());
}

function hermes(argv: string[]) {
  const [sub, ...rest] = argv;
  if (sub === "install") {
    const { values } = parseArgs({ args: rest, options: { dir: { type: "string" }, url: { type: "string" } } });
    const { dir } = installHermesPlugin({ dir: values.dir, hermesHome: readHermesConfig().hermesHome });
    process.stdout.write(`${installMessage(dir, values.url)}\n`);
    return;
  }
  if (sub === "config") {
    const { values } = parseArgs({ args: rest, options: { url: { type: "string" } } });
    process.stdout.write(hermesMcpConfig({ url: values.url, databaseUrl: readHermesConfig().databaseUrl }));
    return;
  }
  if (sub === "schemas") {
    process.stdout.write(`${generateHermesSchemas(rest[0] ? resolve(rest[0]) : undefined)}\n`);
    return;
  }
  fail(`unknown hermes command: ${sub ?? "(none)"}`);
}

const [command, ...rest] = process.argv.slice(2);
try {
  switch (command) {
    case "serve":
      await serve(rest);
      break;
    case "mcp":
      await mcp(rest);
      break;
    case "hermes":
      hermes(rest);
      break;
    case undefined:
    case "help":
    case "--help":
    case "-h":
      process.stdout.write(USAGE);
      break;
    default:
      fail(`unknown command: ${command}`);
  }
} catch (error) {
  process.stderr.write(`mnote-bridge: ${error instanceof Error ? error.message : String(error)}\n`);
  // A configuration the bridge refuses is a usage error (2), like a bad flag.
  process.exit(error instanceof ConfigError ? 2 : 1);
}
