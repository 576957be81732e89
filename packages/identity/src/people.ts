import { EmailSchema } from "@mnote/contract";
import { isAdminRefusal, type SqlKernel, type TokenRecord, type UserRecord } from "@mnote/kernel";
import type { VerifiedIdentity } from "./oidc";

/** Why a verified identity is no one in mnote; the sign-in page says each, and nothing is created. */
export type PersonRefusal = "no_email" | "unverified_email" | "invalid_email" | "unknown_email";

export type PersonOutcome = { ok: true; user: UserRecord; created: boolean } | { ok: false; reason: PersonRefusal };

/**
 * The mnote user an identity provider vouches for: the one whose email is the ID token's verified `email`.
 * An unverified or missing email finds no one. A verified email nobody has is refused, unless the operator
 * turned on auto-provisioning: then it becomes a new user in no workspace (an owner adds them to one).
 */
export async function personForIdentity(
  kernel: SqlKernel,
  identity: VerifiedIdentity,
  options: { autoProvision: boolean },
): Promise<PersonOutcome> {
  if (!identity.email) return { ok: false, reason: "no_email" };
  if (!identity.emailVerified) return { ok: false, reason: "unverified_email" };
  // Exactly what mnote's one email rule accepts, or no one: a non-ASCII or malformed address is refused here, with
  // the sign-in page's words, never found by a folded look-alike and never a 500 (issue 31, findings 2 and 7).
  const parsed = EmailSchema.safeParse(identity.email);
  if (!parsed.success) return { ok: false, reason: "invalid_email" };
  const email = parsed.data;
  const user = await kernel.admin.findUserByEmail(email);
  if (user) return { ok: true, user, created: false };
  if (!options.autoProvision) return { ok: false, reason: "unknown_email" };
  try {
    // The name claim arrives cleaned and bounded (cleanDisplayName in OidcRelyingParty.finish).
    const created = await kernel.admin.createUser({
      name: identity.name ?? email,
      email,
      by: `oidc:${identity.issuer}`,
    });
    return { ok: true, user: created, created: true };
  } catch (error) {
    if (!isAdminRefusal(error)) throw error;
    // Another sign-in of the same person created the user meanwhile (the email is one user's): that user it is.
    const again = await kernel.admin.findUserByEmail(email);
    return again ? { ok: true, user: again, created: false } : { ok: false, reason: "invalid_email" };
  }
}

/** How a panel session was opened; its person token carries the label, so sign-out knows to revoke it. */
export const PANEL_SESSION_LABELS = {
  dev: "panel dev sign-in",
  oidc: "panel sign-in (identity provider)",
} as const;

export const PANEL_SESSION_TTL_SECONDS = 12 * 3600;

/**
 * A session for a person the panel signed in itself (the demo picker, the identity provider): a person token of
 * 12 hours with every capability, which the session cookie holds. A token an operator minted and the person
 * pasted is theirs, not the session's, and sign-out leaves it alone.
 */
export async function openPanelSession(
  kernel: SqlKernel,
  userId: string,
  how: keyof typeof PANEL_SESSION_LABELS,
): Promise<string> {
  const { token } = await kernel.admin.createToken({
    userId,
    holder: "person",
    scopes: ["page.read", "page.write", "artifact.write"],
    label: PANEL_SESSION_LABELS[how],
    ttlSeconds: PANEL_SESSION_TTL_SECONDS,
  });
  return token;
}

/** Sign-out: a session the panel opened ends with its token; an operator's pasted token stays theirs. */
export async function closePanelSession(kernel: SqlKernel, token: TokenRecord | null): Promise<boolean> {
  if (!token || !(Object.values(PANEL_SESSION_LABELS) as string[]).includes(token.label)) return false;
  await kernel.admin.revokeToken(token.id);
  return true;
}
