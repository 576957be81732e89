import { z } from "zod";
import { storable } from "./text";

/**
 * A user's email as mnote stores and compares it: trimmed, an address zod accepts (ASCII only), at most 254
 * characters (RFC 5321's path limit), then lower-cased. The operator's CLI, the panel, OIDC sign-in and the kernel all
 * use this one rule.
 *
 * Check first, then fold: lower-casing before the check let Unicode whose case mapping lands in ASCII through
 * (KELVIN SIGN U+212A lower-cases to "k", so "\u212Aate@example.com" became kate@example.com, issue 31). The check
 * runs on exactly what was sent, so only ASCII is ever folded, and ASCII folding is one-to-one per letter.
 */
export const EmailSchema = storable(z.string())
  .trim()
  .max(254)
  .pipe(z.email())
  .transform((email) => email.toLowerCase());
