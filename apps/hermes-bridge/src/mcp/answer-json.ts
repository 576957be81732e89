import {
  isJSONRPCErrorResponse,
  isJSONRPCResultResponse,
  type JSONRPCMessage,
  type RequestId,
} from "@modelcontextprotocol/server";

/**
 * Writes the server's JSON-RPC answers as text, serializing each tool result's envelope once.
 *
 * A standard-form `tools/call` result carries the envelope twice: as `structuredContent` and as the JSON text
 * beside it (decision 0024). The handler already made that text (`toResult`), and it is JSON of exactly the
 * `structuredContent` value, so it tells this writer (`keep`) and the answer splices the text in as
 * `structuredContent` instead of serializing the envelope a second time: the bytes a client parses are the same
 * JSON value the SDK's `JSON.stringify` of the message would give. Everything else of the message (the id, the
 * content with its text, `isError`) is still the SDK's message serialized by `JSON.stringify`.
 */
export class AnswerWriter {
  private readonly structured = new Map<RequestId, { json: string; value: Record<string, unknown> }>();

  /** `json` is JSON of `value`, the `structuredContent` the server will answer request `id` with. */
  keep(id: RequestId, json: string, value: Record<string, unknown>) {
    this.structured.set(id, { json, value });
  }

  /**
   * One message as JSON text (without a line end). `keptAs`: the id the handler saw, when the transport renumbered
   * the request (the message then already carries the client's id).
   */
  serialize(message: JSONRPCMessage, keptAs?: RequestId): string {
    if (!isJSONRPCResultResponse(message) && !isJSONRPCErrorResponse(message)) return JSON.stringify(message);
    const id = keptAs ?? message.id;
    const kept = id === undefined ? undefined : this.structured.get(id);
    if (kept === undefined) return JSON.stringify(message);
    this.structured.delete(id!);
    // An error answer (the SDK refused the result) has no structuredContent: forget the text, serialize plainly. So is
    // an answer whose structuredContent is not the value the text was made from (a client that sent two requests
    // under one id at once): the SDK's copy of the result keeps each field's value, so every field must be the same.
    if (!isJSONRPCResultResponse(message) || !sameFields(message.result.structuredContent, kept.value))
      return JSON.stringify(message);
    const json = kept.json;
    const { structuredContent: _serialized, ...rest } = message.result;
    const { result: _result, ...frame } = message;
    const restJson = JSON.stringify(rest);
    const result = `${restJson.length > 2 ? `${restJson.slice(0, -1)},` : "{"}"structuredContent":${json}}`;
    const frameJson = JSON.stringify(frame);
    return `${frameJson.length > 2 ? `${frameJson.slice(0, -1)},` : "{"}"result":${result}}`;
  }

  /** A request the server will not answer (the transport closed): nothing to keep for it. */
  forget(id: RequestId) {
    this.structured.delete(id);
  }
}

/** The same fields holding the same values (by identity): a shallow copy of `value`, or `value` itself. */
function sameFields(copy: unknown, value: Record<string, unknown>): boolean {
  if (copy === value) return true;
  if (typeof copy !== "object" || copy === null) return false;
  const keys = Object.keys(value);
  if (Object.keys(copy).length !== keys.length) return false;
  return keys.every((key) => Object.is((copy as Record<string, unknown>)[key], value[key]));
}
