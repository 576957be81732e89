export { startBridge, type BridgeOptions, type RunningBridge } from "./http/server";
export { createMcpServer, type McpServerOptions } from "./mcp/server";
export { runStdio } from "./mcp/stdio";
export { createLogger, type BridgeLogger, type CallLogLine } from "./logging";
export { RateLimiter, DEFAULT_RATE_LIMIT, type RateLimitSettings } from "@mnote/process";
export { envelopeFromModelArguments } from "./from-model-arguments";
export { traceIdFromTraceparent } from "./trace";
export { generateHermesSchemas } from "./hermes/generate-schemas";
