import type { CallIdentity, DisplayNames, SqlKernel } from "@mnote/kernel";

/**
 * Who did something, as the panel shows it (issue 13: people, not ids): the user's name and, for an
 * agent, its token's name, so the panel can say "Hermes, for Ada". The raw ids stay beside the names.
 */
export interface Who {
  actorId: string;
  /** The user's name ("Ada"); null when no verified actor made the call, or the user was removed. */
  actorName: string | null;
  holder: "person" | "agent" | null;
  tokenId: string | null;
  /** The agent token's name ("Hermes") when an agent made the call and its token has one. */
  agentName: string | null;
}

type Named = Pick<CallIdentity, "actorId" | "holder" | "tokenId">;

/** The names behind a list's identities, in one kernel read for all of them. */
export function loadNames(kernel: SqlKernel, identities: Iterable<Named>): Promise<DisplayNames> {
  const userIds: string[] = [];
  const tokenIds: string[] = [];
  for (const identity of identities) {
    if (identity.actorId) userIds.push(identity.actorId);
    if (identity.tokenId) tokenIds.push(identity.tokenId);
  }
  return kernel.getDisplayNames({ userIds, tokenIds });
}

export function who(names: DisplayNames, identity: Named): Who {
  const token = identity.tokenId ? names.tokens[identity.tokenId] : undefined;
  return {
    actorId: identity.actorId,
    actorName: names.users[identity.actorId] ?? null,
    holder: identity.holder,
    tokenId: identity.tokenId,
    agentName: identity.holder === "agent" && token?.label ? token.label : null,
  };
}
