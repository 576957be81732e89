import { DEFAULT_PAGE_OPTIONS } from "@mnote/contract";
import { type PageRecord, sha256Hex } from "@mnote/kernel";

/**
 * The id of the page a `mnote.page.create` call makes (decision 0046), from the workspace, the person who proposed it
 * and the call's idempotency key: the dry run, the held proposal, a person's approval of it and every retry name the
 * same page before it exists, and a retry after the write finds the page it made. The proposer, not the person who
 * approves: an approval writes the page the agent proposed.
 */
export function newPageId(workspaceId: string, proposerId: string, key: string): string {
  return `doc_${sha256Hex(JSON.stringify(["mnote.page.create", workspaceId, proposerId, key])).slice(0, 32)}`;
}

/** The page a create plans on: empty, at revision 0, as the kernel's write starts it. */
export function pageToBe(input: { workspaceId: string; documentId?: string }, isPrivate: boolean): PageRecord {
  // Named from the key before any check (a write's schema requires the key): a create without it never gets here.
  if (!input.documentId) throw new Error("a page.create reached its checks without the page its key names");
  return {
    id: input.documentId,
    workspaceId: input.workspaceId,
    title: "",
    isPrivate,
    options: { ...DEFAULT_PAGE_OPTIONS },
    revision: 0,
    blockCount: 0,
    createdAt: "",
  };
}
