import { describe, expect, it } from "vitest";
import { contentSecurityPolicy, newNonce, STATIC_SECURITY_HEADERS } from "./security-headers";

describe("the panel's security headers (issue 31, finding 3)", () => {
  it("forbid framing, sniffing and sending the address elsewhere", () => {
    expect(Object.fromEntries(STATIC_SECURITY_HEADERS.map(({ key, value }) => [key, value]))).toEqual({
      "x-frame-options": "DENY",
      "x-content-type-options": "nosniff",
      "referrer-policy": "same-origin",
    });
  });

  it("the policy: framed by no one, everything from the panel, scripts only with this response's nonce", () => {
    const nonce = newNonce();
    const directives = Object.fromEntries(
      contentSecurityPolicy(nonce)
        .split("; ")
        .map((d) => [d.split(" ")[0], d.split(" ").slice(1).join(" ")]),
    );
    expect(directives["frame-ancestors"]).toBe("'none'");
    expect(directives["default-src"]).toBe("'self'");
    expect(directives["object-src"]).toBe("'none'");
    expect(directives["script-src"]).toBe(`'self' 'nonce-${nonce}' 'strict-dynamic'`);
    // No inline script without the nonce, in production no eval.
    expect(contentSecurityPolicy(nonce)).not.toMatch(/'unsafe-inline'[^;]*;?\s*$|script-src[^;]*unsafe/);
    expect(contentSecurityPolicy(nonce, true)).toContain("'unsafe-eval'");
  });

  it("a fresh nonce for every response: 128 random bits", () => {
    const nonces = new Set(Array.from({ length: 1000 }, newNonce));
    expect(nonces.size).toBe(1000);
    for (const nonce of nonces) expect(Buffer.from(nonce, "base64")).toHaveLength(16);
  });
});
