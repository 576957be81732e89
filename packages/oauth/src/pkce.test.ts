import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CODE_VERIFIER, s256Challenge, verifierMatches } from "./pkce";

describe("PKCE S256 (RFC 7636)", () => {
  it("computes the RFC's own example (Appendix B)", () => {
    const verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
    expect(s256Challenge(verifier)).toBe("E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM");
    expect(verifierMatches(verifier, "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")).toBe(true);
  });

  it("a verifier matches its own challenge and no other verifier's", () => {
    const verifier = fc.stringMatching(CODE_VERIFIER);
    fc.assert(
      fc.property(verifier, verifier, (a, b) => {
        expect(verifierMatches(a, s256Challenge(a))).toBe(true);
        if (a !== b) expect(verifierMatches(b, s256Challenge(a))).toBe(false);
      }),
    );
  });

  it("refuses what is not a verifier or not a challenge, without comparing", () => {
    const verifier = "a".repeat(43);
    expect(verifierMatches("short", s256Challenge("short"))).toBe(false);
    expect(verifierMatches(verifier, `${s256Challenge(verifier)}=`)).toBe(false);
    expect(verifierMatches(`${verifier} `, s256Challenge(verifier))).toBe(false);
  });
});
