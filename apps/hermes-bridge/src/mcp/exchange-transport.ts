import {
  type JSONRPCMessage,
  type MessageExtraInfo,
  parseJSONRPCMessage,
  type RequestId,
  type Transport,
} from "@modelcontextprotocol/server";
import { AnswerWriter, isAnswer, isRequest } from "./answer-json";

/**
 * One HTTP POST's answer: the responses to its requests as the UTF-8 JSON of the body (one message, or an array for a
 * batch), or none (202) when it held only notifications.
 */
export type ExchangeAnswer =
  { kind: "responses"; json: Buffer } | { kind: "accepted" } | { kind: "invalid"; message: string };

const OPEN_BATCH = Buffer.from("[");
const COMMA = Buffer.from(",");
const CLOSE_BATCH = Buffer.from("]");

interface Pending {
  clientId: RequestId;
  resolve: (json: Buffer) => void;
}

/**
 * The SDK `Transport` under the one long-lived MCP server of a bridge process: each HTTP POST hands
 * its JSON-RPC messages to the server and waits for the server's answers to exactly those requests.
 *
 * Why not the SDK's StreamableHTTPServerTransport: in stateless mode it serves one request and must
 * be thrown away with its `Server`, and building both per request (a validator, the request
 * handlers, a Web `Request`/`Response` pair around the Node request) cost more than the tool call
 * itself (docs/benchmarks.md, section 2; decision 0024). The server keeps no state between
 * requests (the bridge answers `initialize` without remembering it), so one instance serves every
 * client, and any bridge process still answers any request (decision 0014).
 *
 * The framing stays the SDK's (2.x, `@modelcontextprotocol/server`): messages are checked with its `parseJSONRPCMessage`, dispatched,
 * validated and answered by its `Protocol`, and its answers are written as JSON text (an AnswerWriter
 * splices in a tool result's envelope text instead of serializing it again). This transport only correlates: two clients may both
 * send request id 1 at once, so each request travels under an id of this process's own and its
 * answer goes back under the client's id. Messages the server sends unasked (none today: it makes
 * no requests of the client over HTTP) are dropped, as a JSON answer has nowhere to put them.
 */
export class ExchangeTransport implements Transport {
  onmessage?: Transport["onmessage"];
  onclose?: () => void;
  onerror?: (error: Error) => void;
  private nextId = 0;
  private readonly pending = new Map<number, Pending>();
  /** Each answer is written as text here, its tool result's envelope serialized once (see AnswerWriter). */
  readonly answers = new AnswerWriter();

  async start() {}

  async close() {
    for (const [id, entry] of this.pending) {
      this.pending.delete(id);
      this.answers.forget(id);
      entry.resolve(
        Buffer.from(
          JSON.stringify({ jsonrpc: "2.0", id: entry.clientId, error: { code: -32000, message: "Server closed" } }),
        ),
      );
    }
    this.onclose?.();
  }

  async send(message: JSONRPCMessage) {
    if (!isAnswer(message)) return;
    const ownId = message.id;
    const entry = typeof ownId === "number" ? this.pending.get(ownId) : undefined;
    if (!entry) return;
    this.pending.delete(ownId as number);
    entry.resolve(this.answers.encode({ ...message, id: entry.clientId }, ownId));
  }

  /** Serve one POST's parsed body (one message or a batch). */
  async exchange(body: unknown, extra: MessageExtraInfo): Promise<ExchangeAnswer> {
    const batch = Array.isArray(body);
    const raw: unknown[] = batch ? body : [body];
    const messages: JSONRPCMessage[] = [];
    for (const item of raw) {
      try {
        messages.push(parseJSONRPCMessage(item));
      } catch {
        return { kind: "invalid", message: "Parse error: Invalid JSON-RPC message" };
      }
    }
    const answers: Promise<Buffer>[] = [];
    for (const message of messages) {
      if (!isRequest(message)) {
        // Notifications (initialized, cancelled) and stray responses: the server reads them, nothing is answered.
        this.onmessage?.(message, extra);
        continue;
      }
      const ownId = ++this.nextId;
      answers.push(
        new Promise<Buffer>((resolve) => {
          this.pending.set(ownId, { clientId: message.id, resolve });
        }),
      );
      this.onmessage?.({ ...message, id: ownId }, extra);
    }
    if (!answers.length) return { kind: "accepted" };
    const texts = await Promise.all(answers);
    if (!batch) return { kind: "responses", json: texts[0]! };
    const parts = texts.flatMap((text, i) => (i ? [COMMA, text] : [text]));
    return { kind: "responses", json: Buffer.concat([OPEN_BATCH, ...parts, CLOSE_BATCH]) };
  }
}
