import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { EmailSchema } from "./email";

/** Every non-ASCII code point whose lower- or upper-case form holds an ASCII character (K U+212A, ſ U+017F, İ U+0130, ı U+0131, …). */
const FOLDS_INTO_ASCII: number[] = [];
for (let cp = 0x80; cp <= 0x10ffff; cp++) {
  if (cp >= 0xd800 && cp <= 0xdfff) continue;
  const c = String.fromCodePoint(cp);
  // eslint-disable-next-line no-control-regex -- any ASCII character in the mapping counts
  if (/[\u0000-\u007f]/.test(c.toLowerCase() + c.toUpperCase() + c.toLocaleLowerCase("tr") + c.toLocaleUpperCase("tr")))
    FOLDS_INTO_ASCII.push(cp);
}

const asciiLocal = fc.stringMatching(/^[a-z0-9][a-z0-9._+-]{0,10}[a-z0-9]$/).filter((s) => !s.includes(".."));
const asciiDomain = fc.stringMatching(/^[a-z][a-z0-9-]{0,8}\.[a-z]{2,5}$/);

describe("EmailSchema: check first, then compare", () => {
  it("knows the code points that case-map into ASCII (the table the property runs over)", () => {
    expect(FOLDS_INTO_ASCII).toEqual(expect.arrayContaining([0x212a, 0x017f, 0x0130, 0x0131]));
  });

  it("a KELVIN SIGN never signs in as kate", () => {
    expect(EmailSchema.safeParse("\u212Aate@example.com").success).toBe(false);
    expect(EmailSchema.safeParse("kate@example.com").data).toBe("kate@example.com");
    expect(EmailSchema.safeParse("  Kate@Example.COM ").data).toBe("kate@example.com");
  });

  it("refuses an email holding any code point whose case mapping lands in ASCII, wherever it stands", () => {
    fc.assert(
      fc.property(asciiLocal, asciiDomain, fc.constantFrom(...FOLDS_INTO_ASCII), fc.nat(), (local, domain, cp, at) => {
        const email = `${local}@${domain}`;
        const i = at % (email.length + 1);
        const spoofed = email.slice(0, i) + String.fromCodePoint(cp) + email.slice(i);
        expect(EmailSchema.safeParse(spoofed).success).toBe(false);
      }),
      { numRuns: 2000 },
    );
  });

  it("whatever it accepts is ASCII and exactly the sent address, trimmed and lower-cased", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 40 }), (value) => {
        const parsed = EmailSchema.safeParse(value);
        if (!parsed.success) return;
        // eslint-disable-next-line no-control-regex -- ASCII only
        expect(parsed.data).toMatch(/^[\u0000-\u007f]+$/);
        expect(parsed.data).toBe(value.trim().toLowerCase());
      }),
    );
    fc.assert(
      fc.property(asciiLocal, asciiDomain, (local, domain) => {
        const upper = `${local}@${domain}`.toUpperCase();
        expect(EmailSchema.parse(upper)).toBe(`${local}@${domain}`);
      }),
    );
  });
});
