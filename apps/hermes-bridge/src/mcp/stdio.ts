import { randomUUID } from "node:crypto";
import type { Readable, Writable } from "node:stream";
import type { SqlKernel } from "@mnote/kernel";
import type { JSONRPCMessage } from "@modelcontextprotocol/server";
import { serveStdio, StdioServerTransport } from "@modelcontextprotocol/server/stdio";
import { whoami } from "../auth";
import type { ResultForm } from "../hermes/model-text";
import type { BridgeLogger } from "../logging";
import { resolveToken, type ToolsSettings } from "@mnote/tools";
import { RateLimiter, type RateLimitSettings } from "@mnote/process";
import { AnswerWriter } from "./answer-json";
import { createMcpServer } from "./server";

/**
 * The SDK's stdio transport, its answers written by an AnswerWriter (a tool result's envelope serialized once), and
 * a promise for its end (the SDK closes it when stdin ends, or when the connection is torn down).
 */
class StdioAnswerTransport extends StdioServerTransport {
  readonly answers = new AnswerWriter();
  private ended!: () => void;
  readonly closed = new Promise<void>((resolve) => {
    this.ended = resolve;
  });
  constructor(
    stdin: Readable,
    private readonly out: Writable,
  ) {
    super(stdin, out);
  }
  override send(message: JSONRPCMessage): Promise<void> {
    // As the SDK's send: one line of JSON, resolved once the stream takes it. The line end is in the same buffer: a
    // pipe's stdout is written synchronously, and a write of its own was a second system call and a second wake-up
    // of the client for every answer (docs/benchmarks.md, section 3), where appending it costs no copy (the answer
    // is joined from its pieces anyway).
    return new Promise((resolve) => {
      if (this.out.write(this.answers.encode(message, undefined, "\n"))) resolve();
      else this.out.once("drain", resolve);
    });
  }
  override async close() {
    await super.close();
    this.ended();
  }
}

/**
 * `mnote-bridge mcp --stdio`: one MCP server on stdin/stdout for a client that spawns
 * the bridge (Hermes, Claude Desktop, …). The token comes from MNOTE_TOKEN and every
 * call still goes through the router's checks with it. Logs must go to stderr.
 */
export async function runStdio(input: {
  kernel: SqlKernel;
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
  const token = await resolveToken(input.kernel, authorization);
  if (!token) {
    // Start anyway: every call answers mnote_tool_unauthenticated, which the client can show.
    input.logger.warn({ sessionId }, "MNOTE_TOKEN is missing, unknown, revoked or expired; tool calls will be refused");
  }
  const stdin = input.stdin ?? process.stdin;
  const transport = new StdioAnswerTransport(stdin, input.stdout ?? process.stdout);
  const rateLimiter = input.rateLimit ? new RateLimiter(input.rateLimit) : null;
  // The SDK's stdio entry picks the connection's era from its opening message (initialize: 2025-era; a
  // server/discover or a request with the 2026-07-28 envelope: that revision) and pins one server for it.
  serveStdio(
    () =>
      createMcpServer({
        kernel: input.kernel,
        logger: input.logger,
        rateLimiter,
        authorization,
        // Read once here: a per-call read of the same token was a statement and a hash on every call (issue 37).
        identity: token ? whoami(token) : undefined,
        sessionId,
        resultForm: input.resultForm ?? "standard",
        toolsSettings: input.toolsSettings,
        answers: transport.answers,
      }),
    { transport, onerror: (error) => input.logger.warn({ sessionId, err: error.message }, "mcp stdio error") },
  );
  input.logger.info({ sessionId, transport: "mcp-stdio" }, "mcp stdio server ready");
  return { closed: transport.closed };
}
