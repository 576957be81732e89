import type { NextConfig } from "next";
import {
  NON_DOCUMENT_CONTENT_SECURITY_POLICY,
  NON_DOCUMENT_PATHS,
  STATIC_SECURITY_HEADERS,
} from "./src/server/security-headers";

const config: NextConfig = {
  // The kernel's database drivers are native or WASM: load them from node_modules at run time.
  // prom-client keeps its registry in module state: one copy for every route (the metrics, the router's counters).
  serverExternalPackages: ["better-sqlite3", "pg", "@electric-sql/pglite", "prom-client"],
  poweredByHeader: false,
  // `pnpm typecheck` (run by npm test) checks types; the build need not do it twice.
  typescript: { ignoreBuildErrors: true },
  devIndicators: false,
  // RFC 8414's well-known address of the authorization server's metadata (decision 0027); the route lives beside the
  // other OAuth routes.
  rewrites: async () => [{ source: "/.well-known/oauth-authorization-server", destination: "/oauth/metadata" }],
  // Every response: never framed, never MIME-sniffed, its address sent to no other site (issue 31, finding 3;
  // security-headers.ts says why each). The Content-Security-Policy, with its per-response nonce, is proxy.ts's.
  // Route handlers outside proxy.ts get a fixed policy of their own instead of the nonce one.
  headers: async () => [
    { source: "/:path*", headers: [...STATIC_SECURITY_HEADERS] },
    ...NON_DOCUMENT_PATHS.map((source) => ({
      source,
      headers: [{ key: "content-security-policy", value: NON_DOCUMENT_CONTENT_SECURITY_POLICY }],
    })),
  ],
};

export default config;
