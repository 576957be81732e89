import type { IncomingMessage, ServerResponse } from "node:http";
import type { ToolErrorCode } from "@mnote/contract";
import { readCappedBody } from "@mnote/process";

export { BodyTooLarge } from "@mnote/process";

/**
 * The request body under the bridge's cap: the one reader of every door (`@mnote/process` `readCappedBody`), the
 * request left paused, not destroyed, when it is over the cap so the 413 still reaches the client.
 */
export async function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const body = await readCappedBody(req.iterator({ destroyOnReturn: false }), req.headers["content-length"], limit);
  return Buffer.from(body.buffer, body.byteOffset, body.byteLength);
}

/**
 * Answer a request whose body we will not read. The connection is closed after the
 * answer (the unread rest of the body must not be parsed as the next request).
 */
export function refuseUnread(req: IncomingMessage, res: ServerResponse) {
  res.setHeader("connection", "close");
  res.on("finish", () => {
    // Give the client a moment to read the answer before the socket goes away.
    setTimeout(() => req.socket.destroy(), 50).unref();
  });
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  // Encoded once: the length is the buffer's, and the socket writes the same bytes (an answer already encoded, as the
  // MCP door's AnswerWriter writes them, goes out as it is).
  const bytes = Buffer.isBuffer(body)
    ? body
    : Buffer.from(typeof body === "string" ? body : JSON.stringify(body), "utf8");
  res.writeHead(status, {
    "content-type": "application/json; charset=utf-8",
    "content-length": bytes.length,
    "cache-control": "no-store",
    ...headers,
  });
  res.end(bytes);
}

/**
 * The bridge's one refusal shape outside an envelope (a route that does not exist, a wrong method, a rate limit before
 * any tool runs, a database gone): `{ error: { code, message } }`, the contract's code and words. The panel answers
 * the same shape (apps/web/src/server/refusal.ts).
 */
export function sendRefusal(
  res: ServerResponse,
  status: number,
  code: ToolErrorCode,
  message: string,
  headers: Record<string, string> = {},
) {
  sendJson(res, status, { error: { code, message } }, headers);
}

/** `application/json`, optionally with parameters (`; charset=utf-8`). */
export function isJsonContentType(value: string | undefined): boolean {
  if (!value) return false;
  const type = value.split(";")[0]!.trim().toLowerCase();
  return type === "application/json";
}
