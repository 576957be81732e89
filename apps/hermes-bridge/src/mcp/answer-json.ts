import { randomUUID } from "node:crypto";
import type {
  CallToolResult,
  JSONRPCErrorResponse,
  JSONRPCMessage,
  JSONRPCRequest,
  JSONRPCResultResponse,
  RequestId,
} from "@modelcontextprotocol/server";
import { asciiBytes, type EnvelopeJson } from "../envelope-json";

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
 * Writes the server's JSON-RPC answers as ASCII JSON bytes, serializing each tool result's envelope once.
 *
 * A standard-form `tools/call` result carries the envelope twice: as `structuredContent` and as the JSON text
 * beside it (decision 0024). The handler hands this writer the envelope's JSON (`keep`, an EnvelopeJson) with the
 * result it made of it; the answer then writes both copies from those pieces (decision 0029): the window's blocks,
 * serialized once by the router and kept with the window, go out as bytes made once per window. Everything else of
 * the message (the id, `isError`, anything the SDK added) is the SDK's message serialized by `JSON.stringify`, with
 * a marker where each copy goes: the bytes a client parses are the same JSON value the SDK's `JSON.stringify` of the
 * message would give.
 *
 * Every piece is encoded alone as ASCII (`asciiBytes`), never one string joined from them: V8 builds a joined string
 * as a tree of parts, and once any part holds a character beyond Latin-1 (an ellipsis, a dash, any non-Latin letter
 * on the page) the first read of the whole string, its UTF-8 encoding, cost 0.8–1.1 ms for a 67 KB `page.get`
 * answer against 0.1 ms for each part alone (docs/benchmarks.md, section 2). `Buffer.concat` of the parts is one copy.
 */
export class AnswerWriter {
  private readonly kept = new Map<RequestId, { json: EnvelopeJson; result: CallToolResult }>();

  /** `result` is what the server will answer request `id` with, made from the envelope whose JSON is `json`. */
  keep(id: RequestId, json: EnvelopeJson, result: CallToolResult) {
    this.kept.set(id, { json, result });
  }

  /**
   * One message as ASCII JSON, followed by `lineEnd` when given (stdio frames a message as one line: the answer and
   * its line end are then one buffer, one write, one wake-up of the reader). `keptAs`: the id the handler saw, when
   * the transport renumbered the request (the message then already carries the client's id).
   */
  encode(message: JSONRPCMessage, keptAs?: RequestId, lineEnd = ""): Buffer {
    const plain = () => asciiBytes(JSON.stringify(message) + lineEnd);
    if (!isAnswer(message)) return plain();
    const id = keptAs ?? message.id;
    const kept = id === undefined ? undefined : this.kept.get(id);
    if (kept === undefined) return plain();
    this.kept.delete(id!);
    // An error answer (the SDK refused the result) has neither copy: serialize it plainly.
    if (!isResult(message)) return plain();
    const result = message.result as Partial<CallToolResult>;
    // Each copy is spliced only where the message still holds exactly what the handler made (the SDK copies the
    // result it validated, keeping each field's value): the text the envelope's JSON is, the envelope itself.
    const [only, ...more] = Array.isArray(result.content) ? result.content : [];
    const text = only?.type === "text" && more.length === 0 && only.text === textOf(kept.result) ? only : undefined;
    const structured =
      result.structuredContent !== undefined &&
      sameFields(result.structuredContent, kept.result.structuredContent as Record<string, unknown> | undefined);
    if (!text && !structured) return plain();
    const shell: Record<string, unknown> = { ...result };
    if (text) shell.content = [{ ...text, text: TEXT_SPLICE }];
    if (structured) shell.structuredContent = STRUCTURED_SPLICE;
    const frame = JSON.stringify({ ...message, result: shell });
    const splices: Array<{ at: number; marker: string; pieces: () => Buffer[] }> = [];
    for (const [marker, pieces] of [
      [`"${TEXT_SPLICE}"`, text ? () => [QUOTE, ...kept.json.asciiInStringBytes(), QUOTE] : null],
      [`"${STRUCTURED_SPLICE}"`, structured ? () => kept.json.asciiBytes() : null],
    ] as const) {
      if (!pieces) continue;
      const at = frame.indexOf(marker);
      // The markers are this process's own random words: only a message that held one already is written plainly.
      if (at < 0 || frame.indexOf(marker, at + marker.length) >= 0) return plain();
      splices.push({ at, marker, pieces });
    }
    // In the frame's own order: the SDK's copy of the result decides whether the text or the envelope comes first.
    splices.sort((a, b) => a.at - b.at);
    const parts: Buffer[] = [];
    let from = 0;
    for (const { at, marker, pieces } of splices) {
      parts.push(asciiBytes(frame.slice(from, at)), ...pieces());
      from = at + marker.length;
    }
    parts.push(asciiBytes(frame.slice(from) + lineEnd));
    return Buffer.concat(parts);
  }

  /** A request the server will not answer (the transport closed): nothing to keep for it. */
  forget(id: RequestId) {
    this.kept.delete(id);
  }
}

const textOf = (result: CallToolResult) => {
  const [only] = result.content;
  return only?.type === "text" ? only.text : undefined;
};

/** Words JSON.stringify writes as they are, standing in for the two copies. Random per process. */
const TEXT_SPLICE = `mnote-text-${randomUUID()}`;
const STRUCTURED_SPLICE = `mnote-structured-${randomUUID()}`;
const QUOTE = Buffer.from('"');

/** The same fields holding the same values (by identity): a shallow copy of `value`, or `value` itself. */
function sameFields(copy: unknown, value: Record<string, unknown> | undefined): boolean {
  if (value === undefined) return false;
  if (copy === value) return true;
  if (typeof copy !== "object" || copy === null) return false;
  const keys = Object.keys(value);
  if (Object.keys(copy).length !== keys.length) return false;
  return keys.every((key) => Object.is((copy as Record<string, unknown>)[key], value[key]));
}
