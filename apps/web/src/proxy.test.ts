import { describe, expect, it } from "vitest";
import { config } from "./proxy";
import { NON_DOCUMENT_PATHS } from "./server/security-headers";

// Next reads the matcher as a path pattern whose group is a regular expression; as one RegExp it says the same.
const proxied = (path: string) => config.matcher.some((pattern) => new RegExp(`^${pattern}$`).test(path));

describe("which responses the nonce proxy handles", () => {
  it("leaves every route handler that answers JSON or a redirect to next.config.ts's fixed policy", () => {
    for (const source of NON_DOCUMENT_PATHS) {
      const path = source.replace(":path*", "trpc/mnote.page.save");
      expect(proxied(path), path).toBe(false);
    }
  });

  it("gives every page its nonce policy, the OAuth consent page included", () => {
    for (const path of ["/", "/signin", "/agents", "/w/ws_demo/p/doc_plan", "/w/ws_demo/members", "/oauth/authorize"])
      expect(proxied(path), path).toBe(true);
    expect(proxied("/_next/static/chunks/app.js")).toBe(false);
  });
});
