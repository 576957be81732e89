import type {
  JSONRPCErrorResponse,
  JSONRPCMessage,
  JSONRPCRequest,
  JSONRPCResultResponse,
  RequestId,
} from "@modelcontextprotocol/server";

/*
 * Which kind a message is, by its members. The messages these see were made by the SDK (its answers) or already
 * checked by its `parseJSONRPCMessage` (a request), so they are one of the four JSON-RPC shapes and a member tells
 * them apart; the SDK's own `isJSONRPC*` guards run a zod parse of the whole message, a 32 KB result included.
 */
export const isResult = (message: JSONRPCMessage): message is JSONRPCResultResponse => "result" in message;
export const isAnswer = (message: JSONRPCMessage): message is JSONRPCResultResponse | JSONRPCErrorResponse =>
  "result" in message || "error" in message;
export const isRequest = (message: JSONRPCMessage): message is JSONRPCRequest => "method" in message && "id" in message;

/**
 * Writes the server's JSON-RPC answers as UTF-8 bytes, serializing each tool result's envelope once.
 *
 * A standard-form `tools/call` result carries the envelope twice: as `structuredContent` and as the JSON text
 * beside it (decision 0024). The handler already made that text (`toResult`), and it is JSON of exactly the
 * `structuredContent` value, so it tells this writer (`keep`) and the answer puts the text in as `structuredContent`
 * instead of serializing the envelope a second time: the bytes a client parses are the same JSON value the SDK's
 * `JSON.stringify` of the message would give. Everything else of the message (the id, the content with its text,
 * `isError`) is still the SDK's message serialized by `JSON.stringify`.
 *
 * The answer is encoded piece by piece (`jsonBytes`), each piece a string as `JSON.stringify` made it, never one
 * string joined from them. V8 builds a large `JSON.stringify` result, and a joined
 * string, as a tree of parts; once any part holds a character beyond Latin-1 (an ellipsis, a dash, any non-Latin
 * letter on the page) the first read of the whole string, its UTF-8 encoding, costs about ten times its size in
 * encoding work: 0.8–1.1 ms for a 67 KB `page.get` answer against 0.1 ms for each part alone (docs/benchmarks.md,
 * section 2). `Buffer.concat` of the encoded parts is one copy.
 */
export class AnswerWriter {
  private readonly structured = new Map<RequestId, { json: string; value: Record<string, unknown> }>();

  /** `json` is JSON of `value`, the `structuredContent` the server will answer request `id` with. */
  keep(id: RequestId, json: string, value: Record<string, unknown>) {
    this.structured.set(id, { json, value });
  }

  /**
   * One message as UTF-8 JSON (without a line end). `keptAs`: the id the handler saw, when the transport renumbered
   * the request (the message then already carries the client's id).
   */
  encode(message: JSONRPCMessage, keptAs?: RequestId): Buffer {
    if (!isAnswer(message)) return jsonBytes(JSON.stringify(message));
    const id = keptAs ?? message.id;
    const kept = id === undefined ? undefined : this.structured.get(id);
    if (kept === undefined) return jsonBytes(JSON.stringify(message));
    this.structured.delete(id!);
    // An error answer (the SDK refused the result) has no structuredContent: forget the text, serialize plainly. So is
    // an answer whose structuredContent is not the value the text was made from (a client that sent two requests
    // under one id at once): the SDK's copy of the result keeps each field's value, so every field must be the same.
    if (!isResult(message) || !sameFields(message.result.structuredContent, kept.value))
      return jsonBytes(JSON.stringify(message));
    const { structuredContent: _serialized, ...rest } = message.result;
    const { result: _result, ...frame } = message;
    const frameJson = JSON.stringify(frame);
    // `rest` holds the content, the text of the envelope with it: encoded as JSON.stringify wrote it, then cut before
    // its closing brace (one byte) to add the kept text as structuredContent.
    const restBytes = jsonBytes(JSON.stringify(rest));
    const restOpen = restBytes.length > 2 ? restBytes.subarray(0, -1) : OPEN;
    return Buffer.concat([
      jsonBytes(frameJson.length > 2 ? `${frameJson.slice(0, -1)},"result":` : '{"result":'),
      restOpen,
      restOpen === OPEN ? STRUCTURED : COMMA_STRUCTURED,
      jsonBytes(kept.json),
      CLOSE,
    ]);
  }

  /** A request the server will not answer (the transport closed): nothing to keep for it. */
  forget(id: RequestId) {
    this.structured.delete(id);
  }
}

const ANY_NON_ASCII = /[\u0080-\uffff]/;
const NON_ASCII = /[\u0080-\uffff]/g;
const escapeUnit = (unit: string) => `\\u${unit.charCodeAt(0).toString(16).padStart(4, "0")}`;

/**
 * JSON text as bytes, every character beyond ASCII written as its `\uXXXX` escape (as Python's `json.dumps` writes
 * by default): the same JSON value, in ASCII. A reader then decodes and parses a one-byte string; the same answer
 * with its characters as UTF-8 took a Node client 8× as long to decode and parse (2.0 ms against 0.25 ms for a 67 KB
 * `page.get` answer holding two ellipses; docs/benchmarks.md, section 2). Costs 4–6 bytes more per such character on
 * the wire. Only string contents can hold such a character, and an escape there reads back as the same character.
 */
function jsonBytes(json: string): Buffer {
  return Buffer.from(ANY_NON_ASCII.test(json) ? json.replace(NON_ASCII, escapeUnit) : json, "latin1");
}

const OPEN = Buffer.from("{");
const STRUCTURED = Buffer.from('"structuredContent":');
const COMMA_STRUCTURED = Buffer.from(',"structuredContent":');
const CLOSE = Buffer.from("}}");
/** The same fields holding the same values (by identity): a shallow copy of `value`, or `value` itself. */
function sameFields(copy: unknown, value: Record<string, unknown>): boolean {
  if (copy === value) return true;
  if (typeof copy !== "object" || copy === null) return false;
  const keys = Object.keys(value);
  if (Object.keys(copy).length !== keys.length) return false;
  return keys.every((key) => Object.is((copy as Record<string, unknown>)[key], value[key]));
}
