import type { NextConfig } from "next";

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
  // The consent page and its answers are never framed by another site (clickjacking a person's Allow), and the
  // request in their address (state, code_challenge) goes to no other site as a Referer. `same-origin`, not
  // `no-referrer`: under no-referrer a browser sends `Origin: null` with the page's own form posts, which the
  // cross-site check must refuse.
  headers: async () => [
    {
      source: "/oauth/:path*",
      headers: [
        { key: "x-frame-options", value: "DENY" },
        { key: "content-security-policy", value: "frame-ancestors 'none'" },
        { key: "referrer-policy", value: "same-origin" },
      ],
    },
  ],
};

export default config;
