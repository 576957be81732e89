import { randomUUID } from "node:crypto";
import type { JSONRPCMessage, Server, Transport } from "@modelcontextprotocol/server";
import { AnswerWriter, isResult } from "./answer-json";

/**
 * One 2026-07-28 request's answer, written by this bridge's AnswerWriter instead of the SDK's `Response.json`
 * (decision 0029). The SDK's handler for that revision (`createMcpHandler`) serves each request on a server through
 * its per-request transport, which serializes the answer with `Response.json`: the envelope twice (as
 * `structuredContent` and as its text), characters beyond ASCII as UTF-8, which a Node client then decodes into a
 * two-byte string (docs/benchmarks.md, section 2). Everything about the exchange stays the SDK's: its checks of the
 * request, its dispatch and validation, the answer's status and headers, and the message itself. Only the bytes of a
 * `tools/call` result are this writer's: the same JSON value, in ASCII, the window's blocks written once.
 *
 * How: the request's server sends its answer through `send` (wrapped by ModernServers), which hands the SDK's
 * transport the same message with a small stand-in result and keeps the real message's bytes; the door then writes
 * those bytes where the SDK's body held the stand-in. Anything else (an error, a notification, an SSE stream) goes
 * out as the SDK made it.
 */
export class ModernAnswer {
  /** A word no client can send in a result: this process's own random key. */
  static readonly MARKER = `mnote-answer-${randomUUID()}`;
  readonly answers = new AnswerWriter();
  /** The real answer's bytes, once the server sent a result the writer held an envelope for. */
  bytes: Buffer | undefined;

  /** The transport's `send`, writing a result's bytes here and handing the SDK the stand-in in its place. */
  wrap(transport: Transport) {
    const send = transport.send.bind(transport);
    transport.send = (message: JSONRPCMessage, options) => {
      if (!isResult(message) || this.bytes !== undefined) return send(message, options);
      this.bytes = this.answers.encode(message);
      return send({ ...message, result: { [ModernAnswer.MARKER]: true } }, options);
    };
  }

  /**
   * The body to send for the SDK's `response`: the kept bytes where the SDK answered 200 with JSON, else null (an
   * error, a stream, no body: the door sends the SDK's response as it is). The per-request transport answers a
   * result, and only a result, with a 200 JSON response of exactly the message it was sent (its `send`), so once a
   * result's bytes are kept, a 200 JSON response is the stand-in: its body is not read back to be sure (reading the
   * Web stream cost more than writing it).
   */
  body(response: Response): Buffer | null {
    if (this.bytes === undefined || response.status !== 200) return null;
    return response.headers.get("content-type")?.startsWith("application/json") ? this.bytes : null;
  }
}

/** Idle servers kept at most: more than the requests a process has in flight at once only holds memory. */
const MAX_IDLE_SERVERS = 64;

/**
 * The servers `createMcpHandler` serves 2026-07-28 requests on. The SDK asks its factory for a server per request and
 * refuses one that is still serving another exchange (`assertNotServing`); it does not require a new one. A server
 * connects to the request's transport, answers, and is closed with it (`Protocol` ends the connection and clears its
 * handlers' state). Building one per request (a `Server`, its handler maps, its codec state, and the garbage of all of
 * it) was a share of every 2026-07-28 call (docs/benchmarks.md, section 2; decision 0050), so a closed server goes back
 * to this pool and serves a later request. What a server keeps from one exchange to the next is nothing a tool call
 * reads: the revision is set per request by the SDK, the client's identity is seeded per request from its `_meta`
 * (and read only by server-to-client requests, which that revision does not have), and each call's token, session and
 * result form travel in the request's `authInfo`, as on the 2025-era server every request shares.
 */
export class ModernServers {
  private readonly idle: Server[] = [];
  /** The answer of the exchange a server is taken for (one exchange at a time per server). */
  private readonly answerOf = new WeakMap<Server, ModernAnswer>();

  constructor(private readonly make: () => Server) {}

  /** A server not serving anything, its next exchange's result written to `answer`. */
  take(answer: ModernAnswer | undefined): Server {
    const server = this.idle.pop() ?? this.fresh();
    if (answer) this.answerOf.set(server, answer);
    else this.answerOf.delete(server);
    return server;
  }

  private fresh(): Server {
    const server = this.make();
    const connect = server.connect.bind(server);
    server.connect = (transport: Transport) => {
      this.answerOf.get(server)?.wrap(transport);
      return connect(transport);
    };
    // The SDK's handler restores this after each exchange and calls it when the exchange's transport closes: the
    // server is then connected to nothing and may serve again.
    server.onclose = () => {
      this.answerOf.delete(server);
      if (this.idle.length < MAX_IDLE_SERVERS && !this.idle.includes(server)) this.idle.push(server);
    };
    return server;
  }

  /** Idle servers now (tests). */
  get idleCount(): number {
    return this.idle.length;
  }
}
