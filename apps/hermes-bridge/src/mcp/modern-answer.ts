import { randomUUID } from "node:crypto";
import type { JSONRPCMessage, Server, Transport } from "@modelcontextprotocol/server";
import { AnswerWriter, isResult } from "./answer-json";

/**
 * One 2026-07-28 request's answer, written by this bridge's AnswerWriter instead of the SDK's `Response.json`
 * (decision 0029). The SDK's handler for that revision (`createMcpHandler`) serves each request on a server of its
 * own through its per-request transport, which serializes the answer with `Response.json`: the envelope twice (as
 * `structuredContent` and as its text), characters beyond ASCII as UTF-8, which a Node client then decodes into a
 * two-byte string (docs/benchmarks.md, section 2). Everything about the exchange stays the SDK's: its checks of the
 * request, its dispatch and validation, the answer's status and headers, and the message itself. Only the bytes of a
 * `tools/call` result are this writer's: the same JSON value, in ASCII, the window's blocks written once.
 *
 * How: the request's server sends its answer through `send` (wrapped here), which hands the SDK's transport the same
 * message with a small stand-in result and keeps the real message's bytes; the door then writes those bytes where the
 * SDK's body held the stand-in. Anything else (an error, a notification, an SSE stream) goes out as the SDK made it.
 */
export class ModernAnswer {
  /** A word no client can send in a result: this process's own random key. */
  static readonly MARKER = `mnote-answer-${randomUUID()}`;
  readonly answers = new AnswerWriter();
  /** The real answer's bytes, once the server sent a result the writer held an envelope for. */
  bytes: Buffer | undefined;

  /** Wrap the transport the SDK connects `server` to, so its result answers come here. */
  attach(server: Server): Server {
    const connect = server.connect.bind(server);
    server.connect = (transport: Transport) => {
      const send = transport.send.bind(transport);
      transport.send = (message: JSONRPCMessage, options) => {
        if (!isResult(message) || this.bytes !== undefined) return send(message, options);
        const bytes = this.answers.encode(message);
        this.bytes = bytes;
        return send({ ...message, result: { [ModernAnswer.MARKER]: true } }, options);
      };
      return connect(transport);
    };
    return server;
  }

  /**
   * The body to send for the SDK's plain JSON `response`: the kept bytes where the SDK's body is the stand-in answer,
   * else the SDK's own body. Null for any other response (a stream, no body): the door streams it as it is.
   */
  async body(response: Response): Promise<Buffer | null> {
    if (this.bytes === undefined || !response.headers.get("content-type")?.startsWith("application/json")) return null;
    const text = await response.text();
    return text.includes(ModernAnswer.MARKER) ? this.bytes : Buffer.from(text);
  }
}
