import type { AccessFacts } from "@mnote/kernel";
import type { AccessNeed } from "./tool-spec";

/**
 * Who may do what on a page. Members read every non-private page; a private page
 * needs an explicit grant. Owners and editors write; a `write` grant lets anyone
 * (a viewer, or anyone on a private page) write too.
 */
export function canReadPage(facts: AccessFacts): boolean {
  if (!facts.page || !facts.role) return false;
  return !facts.page.isPrivate || facts.grant !== null;
}

export function canWritePage(facts: AccessFacts): boolean {
  if (!canReadPage(facts)) return false;
  if (facts.grant === "write") return true;
  if (facts.page!.isPrivate) return false;
  return facts.role === "owner" || facts.role === "editor";
}

/** Artifacts hang off a page the caller can read; writing them needs an editing role or a write grant. */
export function canWriteArtifacts(facts: AccessFacts): boolean {
  if (!canReadPage(facts)) return false;
  return facts.grant === "write" || facts.role === "owner" || facts.role === "editor";
}

/**
 * A new page (decision 0046): a member who may write the workspace's pages — an owner or an editor — may start one.
 * No page exists to hold a grant yet, so a viewer may not.
 */
export function canCreatePage(facts: AccessFacts): boolean {
  return facts.role === "owner" || facts.role === "editor";
}

export function hasAccess(facts: AccessFacts, need: AccessNeed): boolean {
  if (need === "page_create") return canCreatePage(facts);
  if (need === "page_read") return canReadPage(facts);
  if (need === "page_write") return canWritePage(facts);
  return canWriteArtifacts(facts);
}
