import { SqlKernel, openSqliteDriver } from "@mnote/kernel";
import { CallToolResultSchema, CallToolRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { hermesSafeJson } from "./hermes/model-text";
import { toResult } from "./mcp/server";
import { createTestWorld } from "./test-support";
