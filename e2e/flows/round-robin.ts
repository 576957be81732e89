import { createServer, request as httpRequest, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A plain round-robin HTTP balancer: each request goes to the next upstream, no sticky sessions; responses
 * (streams included) are piped through as they come. Counts what each upstream served.
 */
export async function roundRobinProxy(
  upstreams: readonly number[],
): Promise<{ url: string; served: number[]; close: () => Promise<void> }> {
  const served = upstreams.map(() => 0);
  let next = 0;
  const proxy: Server = createServer((req, res) => {
    const index = next++ % upstreams.length;
    served[index]! += 1;
    const upstream = httpRequest(
      {
        host: "127.0.0.1",
        port: upstreams[index],
        method: req.method,
        path: req.url,
        headers: { ...req.headers, connection: "close" },
        agent: false,
      },
      (answer) => {
        res.writeHead(answer.statusCode!, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on("error", () => res.destroy());
    res.on("close", () => upstream.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  const close = () =>
    new Promise<void>((resolve) => {
      proxy.closeAllConnections();
      proxy.close(() => resolve());
    });
  return { url, served, close };
}
