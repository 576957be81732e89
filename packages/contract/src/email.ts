import { z } from "zod";

/**
 * A user's email as mnote stores and compares it: trimmed, lower-case, an address zod accepts, at most 254
 * characters (RFC 5321's path limit). The operator's CLI, the panel and the kernel all use this one rule.
 */
export const EmailSchema = z.string().trim().toLowerCase().max(254).pipe(z.email());
