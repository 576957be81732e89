import { randomUUID } from "node:crypto";
import type { Readable, Writable } from "node:stream";
import type { KernelAdapter } from "@mnote/kernel";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import type { ResultForm } from "../hermes/model-text";
import type { BridgeLogger } from "../logging";
import { resolveToken, type ToolsSettings } from "@mnote/tools";
import { RateLimiter, type RateLimitSettings } from "@mnote/process";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { AnswerWriter, type WritesAnswers } from "./answer-json";
import { createMcpServer } from "./server";

/** The SDK's stdio transport, its answers written by an AnswerWriter (a tool result's envelope serialized once). */
class StdioAnswerTransport extends StdioServerTransport implements WritesAnswers {
  readonly answers = new AnswerWriter();
  constructor(
    stdin: Readable,
    private readonly out: Writable,
  ) {
    super(stdin, out);
  }
  override send(message: JSONRPCMessage): Promise<void> {
    // As the SDK's send: one line of JSON, resolved once the stream takes it.
    return new Promise((resolve) => {
      if (this.out.write(`${this.answers.serialize(message)}\n`)) resolve();
      else this.out.once("drain", resolve);
    });
  }
}

/**
 * `mnote-bridge mcp --stdio`: one MCP server on stdin/stdout for a client that spawns
 * the bridge (Hermes, Claude Desktop, …). The token comes from MNOTE_TOKEN and every
 * call still goes through the router's checks with it. Logs must go to stderr.
 */
export async function runStdio(input: {
  kernel: KernelAdapter;
  logger: BridgeLogger;
  token: string | undefined;
  rateLimit: RateLimitSettings | null;
  /** `hermes` when Hermes Agent spawns the bridge (MNOTE_RESULT_FORM=hermes); default standard. */
  resultForm?: ResultForm;
  /** The process's validated router settings. */
  toolsSettings?: ToolsSettings;
  stdin?: Readable;
  stdout?: Writable;
}): Promise<{ closed: Promise<void> }> {
  const sessionId = `stdio_${randomUUID()}`;
  const authorization = input.token ? `Bearer ${input.token}` : null;
  if (!(await resolveToken(input.kernel, authorization))) {
    // Start anyway: every call answers mnote_tool_unauthenticated, which the client can show.
    input.logger.warn({ sessionId }, "MNOTE_TOKEN is missing, unknown, revoked or expired; tool calls will be refused");
  }
  const server = createMcpServer({
    kernel: input.kernel,
    logger: input.logger,
    rateLimiter: input.rateLimit ? new RateLimiter(input.rateLimit) : null,
    authorization,
    sessionId,
    resultForm: input.resultForm ?? "standard",
    toolsSettings: input.toolsSettings,
  });
  const stdin = input.stdin ?? process.stdin;
  const transport = new StdioAnswerTransport(stdin, input.stdout ?? process.stdout);
  const closed = new Promise<void>((resolve) => {
    server.onclose = () => resolve();
  });
  await server.connect(transport);
  // The SDK transport does not notice the client going away; end the session when stdin ends.
  const end = () => void server.close();
  stdin.once("end", end);
  stdin.once("close", end);
  input.logger.info({ sessionId, transport: "mcp-stdio" }, "mcp stdio server ready");
  return { closed };
}
