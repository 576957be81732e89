import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { safeReturnPath } from "./return-path";

describe("safeReturnPath: back to a page of the panel after sign-in, never to another site", () => {
  it("keeps the panel's own paths", () => {
    for (const path of ["/", "/agents", "/w/ws_demo/p/doc_plan", "/w/ws_demo/members", "/w/ws-1/p/doc.v2"])
      expect(safeReturnPath(path), path).toBe(path);
  });

  it("refuses anything that could leave the site, or is no page", () => {
    for (const bad of [
      "//evil.example",
      "//evil.example/w/x",
      "/\\evil.example",
      "/\\/evil.example",
      "\\\\evil.example",
      "https://evil.example",
      "http:evil.example",
      "javascript:alert(1)",
      "/w/x?next=//evil.example",
      "/w/x#//evil.example",
      "/w/%2F%2Fevil.example",
      "/w/\tx",
      " /w/x",
      "w/x",
      "",
      "/signin",
      "/api/session",
      `/${"a".repeat(600)}`,
      null,
      undefined,
      42,
      ["/w/x"],
    ])
      expect(safeReturnPath(bad), String(bad)).toBeNull();
  });

  it("whatever string it keeps resolves to the same origin and path (property)", () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.webPath(), fc.webUrl()), (value) => {
        const kept = safeReturnPath(value);
        if (kept === null) return;
        const url = new URL(kept, "https://panel.example");
        expect(url.origin).toBe("https://panel.example");
        expect(url.pathname).toBe(kept);
      }),
      { numRuns: 2000 },
    );
  });
});
