import { type Block, type Change, type DryRunResult, PAGE_OPTION_REGISTRY, type PageOptionKey } from "@mnote/contract";
import {
  idsToMerge,
  insertedBlocks,
  type Merged,
  mergeChanges,
  type PageNow,
  type Placement,
  changeAnchor,
} from "@mnote/diff";
import type { PageRecord, SqlKernel } from "@mnote/kernel";
import { counted } from "./counted";

/**
 * A proposal's changes against the page as it is now (decision 0030), read from the proposal's audit record: the
 * blocks the changes name (never the whole page), and each change's merge. One implementation for the panel's
 * review, its decisions and the agent's retry.
 */
export interface ProposalOnPage {
  changes: Change[];
  placements: (Placement | null)[];
  page: PageNow;
  merged: Merged[];
  inserted: ReadonlyMap<string, Placement | null | undefined>;
}

/** What a proposal's audit record keeps that the merge needs. */
export interface ProposalDetail {
  preview: DryRunResult;
  placements?: (Placement | null)[];
}

export async function proposalOnPage(
  kernel: SqlKernel,
  page: Pick<PageRecord, "id" | "title" | "options">,
  detail: ProposalDetail,
): Promise<ProposalOnPage> {
  const changes = detail.preview.changes;
  const placements = detail.placements ?? changes.map(() => null);
  const located = await kernel.findBlocks(page.id, idsToMerge(changes, placements));
  const blocks = new Map<string, Block>(located.map((entry) => [entry.block.id, entry.block]));
  const now: PageNow = { title: page.title, options: page.options, blocks };
  return {
    changes,
    placements,
    page: now,
    merged: mergeChanges(changes, placements, now),
    inserted: insertedBlocks(changes, placements),
  };
}

/** What a change changes, as the agent and the trail name it: `block <id>`, `title`, `option <key>`. */
export function changeTarget(change: Change): string {
  const anchor = changeAnchor(change);
  switch (anchor.kind) {
    case "block":
      return `block ${anchor.blockId}`;
    case "title":
      return "title";
    case "option":
      return `option ${anchor.key}`;
    default:
      return change.kind;
  }
}

const QUOTE_MAX = 40;
/** A block's text as a short quote for a sentence ("'Alpha line'"); its type when it has no text. */
export function quoteBlock(block: Block): string {
  return block.text.trim() ? quoteText(block.text) : `a ${block.type} block`;
}

/** Text as a short quote: one line, at most QUOTE_MAX characters. */
export function quoteText(value: string): string {
  const text = value.replace(/\s+/g, " ").trim();
  return `'${text.length > QUOTE_MAX ? `${text.slice(0, QUOTE_MAX - 1)}…` : text}'`;
}

/**
 * One change in words, for the trail and the review ("inserted 'Alpha line' after 'Rollout'"). `near` finds the
 * block a placement names (when it is known), to say where.
 */
export function describeChange(
  change: Change,
  placement: Placement | null | undefined,
  near: (id: string) => Block | undefined,
): string {
  const where = () => {
    const words = placementWords(placement, near);
    return words ? ` ${words}` : "";
  };
  switch (change.kind) {
    case "insert":
      return `inserted ${quoteBlock(change.block)}${where()}`;
    case "delete":
      return `deleted ${quoteBlock(change.block)}`;
    case "update":
      return change.before.text === change.after.text
        ? `changed the formatting of ${quoteBlock(change.after)}`
        : `changed ${quoteBlock(change.before)} to ${quoteBlock(change.after)}`;
    case "move":
      return `moved ${quoteBlock(change.block)}${where()}`;
    case "set_title":
      return `renamed the page from ${quoteText(change.before)} to ${quoteText(change.after)}`;
    case "set_option":
      return `turned ${change.after ? "on" : "off"} ${PAGE_OPTION_REGISTRY[change.key as PageOptionKey]?.label ?? change.key}`;
    case "set_summary":
      return "wrote the page's summary";
    case "add_ai_note":
      return "added an AI note";
    case "add_comment":
      return change.threadId ? "replied in a comment thread" : "commented on a block";
  }
}

/**
 * Where an inserted or moved block goes, in words ("after 'Rollout'", "at the start", "at the end"); empty when the
 * proposal recorded no place or the block it follows is unknown. A position number means nothing to a reader.
 */
export function placementWords(
  placement: Placement | null | undefined,
  near: (id: string) => Block | undefined,
): string {
  if (!placement) return "";
  if ("end" in placement) return "at the end";
  if (placement.after === null) return "at the start";
  const block = near(placement.after);
  return block ? `after ${quoteBlock(block)}` : "";
}

/** A write's changes in one sentence: the first few in words, then how many more. */
export function describeChanges(sentences: readonly string[]): string {
  if (sentences.length === 0) return "changed nothing";
  const shown = sentences.slice(0, 3).join("; ");
  return sentences.length > 3 ? `${shown}; and ${counted(sentences.length - 3, "more change", "more changes")}` : shown;
}
