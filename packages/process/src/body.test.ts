import { once } from "node:events";
import { createServer, request } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { BodyTooLarge, readCappedBody } from "./body";

const bytes = (n: number) => new Uint8Array(n).fill(7);

describe("readCappedBody: the one request-body cap", () => {
  it("reads a body up to the cap, from a web stream or an iterable", async () => {
    expect((await readCappedBody(new Response(bytes(10)).body, "10", 10)).byteLength).toBe(10);
    async function* two() {
      yield bytes(3);
      yield bytes(4);
    }
    expect(await readCappedBody(two(), undefined, 7)).toEqual(bytes(7));
    expect((await readCappedBody(null, null, 7)).byteLength).toBe(0);
  });

  it("a declared Content-Length over the cap is refused before a byte is read", async () => {
    let pulled = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled++;
        controller.enqueue(bytes(1));
      },
    });
    await expect(readCappedBody(stream, "11", 10)).rejects.toBeInstanceOf(BodyTooLarge);
    expect(pulled).toBeLessThanOrEqual(1); // the stream's own first pull at most; nothing read
  });

  it("a web stream that grows past the cap is cancelled at that chunk", async () => {
    let cancelled = false;
    let pulled = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled++;
        controller.enqueue(bytes(4));
      },
      cancel() {
        cancelled = true;
      },
    });
    await expect(readCappedBody(stream, null, 10)).rejects.toBeInstanceOf(BodyTooLarge);
    expect(cancelled).toBe(true);
    expect(pulled).toBeLessThan(6);
  });

  it("a Node request over the cap is left paused, not destroyed: the 413 still reaches the client", async () => {
    const server = createServer((req, res) => {
      readCappedBody(req.iterator({ destroyOnReturn: false }), req.headers["content-length"], 1024).then(
        () => res.end("read"),
        (error: unknown) => {
          res.writeHead(error instanceof BodyTooLarge ? 413 : 500, { connection: "close" });
          res.end("too large");
        },
      );
    });
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    const { port } = server.address() as AddressInfo;
    try {
      const status = await new Promise<number>((resolve, reject) => {
        const req = request({ host: "127.0.0.1", port, method: "POST" }, (res) => {
          res.resume();
          resolve(res.statusCode!);
        });
        req.on("error", reject);
        // No Content-Length (chunked): the cap is met while the body streams.
        for (let i = 0; i < 4; i++) req.write(bytes(512));
        req.end();
      });
      expect(status).toBe(413);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});
