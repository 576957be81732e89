import type { IncomingMessage, ServerResponse } from "node:http";
import type { ToolErrorCode } from "@mnote/contract";

export class BodyTooLarge extends Error {
  constructor() {
    super("request body too large");
  }
}

/**
 * The request body, refused as soon as it passes `limit`: a declared Content-Length
 * over the limit is refused before reading a byte, a stream that grows past it is
 * abandoned at that chunk.
 */
export function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers["content-length"]);
  if (Number.isFinite(declared) && declared > limit) return Promise.reject(new BodyTooLarge());
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const cleanup = () => {
      req.off("data", onData);
      req.off("end", onEnd);
      req.off("error", onError);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        cleanup();
        req.pause();
        reject(new BodyTooLarge());
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      resolve(Buffer.concat(chunks));
    };
    const onError = (error: Error) => {
      cleanup();
      reject(error);
    };
    req.on("data", onData);
    req.on("end", onEnd);
    req.on("error", onError);
  });
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
