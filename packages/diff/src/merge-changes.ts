import type { Block, Change } from "@mnote/contract";
import { sameBlock } from "./diff-blocks";

/**
 * Block-level three-way merge of a proposal's changes with the page as it is now (decision 0030). The merge base is
 * what each change carries of the page it was computed on (an update's `before`, a deleted or moved block, a title's
 * or an option's `before`); "theirs" is the page now; "ours" is the change. A change whose anchor did not move since
 * the base applies to the page now; one whose anchor moved is a conflict on that change alone.
 */

/**
 * Where a proposal puts an inserted or moved block: after a block (by id), at the page's start (`after: null`), or at
 * its end. Recorded with the proposal, since a change's index says nothing once the page has moved.
 */
export type Placement = { after: string | null } | { end: true };

/** What a change is anchored to: the thing whose newer version makes it a conflict. */
export type ChangeAnchor =
  { kind: "block"; blockId: string } | { kind: "title" } | { kind: "option"; key: string } | { kind: "artifact" };

export function changeAnchor(change: Change): ChangeAnchor {
  switch (change.kind) {
    case "insert":
    case "delete":
    case "move":
      return { kind: "block", blockId: change.block.id };
    case "update":
      return { kind: "block", blockId: change.after.id };
    case "set_title":
      return { kind: "title" };
    case "set_option":
      return { kind: "option", key: change.key };
    default:
      return { kind: "artifact" };
  }
}

/** The page now, as much of it as a proposal's changes name: a merge never reads the whole page. */
export interface PageNow {
  title: string;
  options: Readonly<Record<string, boolean>>;
  /** The blocks on the page now that the changes or their placements name; an id absent here is not on the page. */
  blocks: ReadonlyMap<string, Block>;
}

/** The block ids a merge of `changes` needs to read: every anchor, and every block a placement goes after. */
export function idsToMerge(changes: readonly Change[], placements: readonly (Placement | null | undefined)[]) {
  const ids = new Set<string>();
  changes.forEach((change, i) => {
    const anchor = changeAnchor(change);
    if (anchor.kind === "block") ids.add(anchor.blockId);
    const placement = placements[i];
    if (placement && "after" in placement && placement.after !== null) ids.add(placement.after);
  });
  return [...ids];
}

export type ConflictReason =
  /** The block's content differs from the version the change was computed on. */
  | "block_changed"
  /** The block the change edits or moves is no longer on the page. */
  | "block_deleted"
  /** The block an insert or move goes after is no longer on the page. */
  | "place_deleted"
  /** The title or option is no longer the value the change was computed on. */
  | "value_changed"
  /** Recorded before proposals kept placements: where the block goes is unknown. */
  | "no_place";

export type Merged =
  /** The anchor did not move: the change applies to the page now. */
  | { state: "current" }
  /** The page already holds exactly what the change would make: applying it writes nothing. */
  | { state: "already" }
  /** The anchor moved since the base; `current` is the page's version now (null: the block is gone). */
  | { state: "conflict"; reason: ConflictReason; current: Block | string | boolean | null };

const CURRENT: Merged = { state: "current" };
const ALREADY: Merged = { state: "already" };

/** Where a block goes on the page now. */
export type Place = { after: string } | { at: "start" | "end" };

/**
 * Where a placement lands on the page now: after its block when that is there (or is placed in the same step,
 * `placed`); when it is a block this proposal inserts that is not on the page (left out, or pending), wherever that
 * block would have gone; null when the block it goes after was deleted since (or the placement is unknown).
 */
export function resolvePlace(
  placement: Placement | null | undefined,
  page: PageNow,
  insertedHere: ReadonlyMap<string, Placement | null | undefined>,
  placed: ReadonlySet<string> = new Set(),
): Place | null {
  const seen = new Set<string>();
  let current = placement;
  for (;;) {
    if (!current) return null;
    if ("end" in current) return { at: "end" };
    const after = current.after;
    if (after === null) return { at: "start" };
    if (page.blocks.has(after) || placed.has(after)) return { after };
    if (!insertedHere.has(after) || seen.has(after)) return null;
    seen.add(after);
    current = insertedHere.get(after);
  }
}

/** The inserts of a proposal by block id, with their placements: where a chain of inserted blocks is placed. */
export function insertedBlocks(changes: readonly Change[], placements: readonly (Placement | null | undefined)[]) {
  const inserted = new Map<string, Placement | null | undefined>();
  changes.forEach((change, i) => {
    if (change.kind === "insert") inserted.set(change.block.id, placements[i]);
  });
  return inserted;
}

/** One change of a proposal against the page now. */
export function mergeChange(
  change: Change,
  placement: Placement | null | undefined,
  page: PageNow,
  insertedHere: ReadonlyMap<string, Placement | null | undefined>,
): Merged {
  switch (change.kind) {
    case "insert": {
      const there = page.blocks.get(change.block.id);
      if (there) return sameBlock(there, change.block) ? ALREADY : conflict("block_changed", there);
      if (!placement) return conflict("no_place", null);
      return resolvePlace(placement, page, insertedHere) ? CURRENT : conflict("place_deleted", null);
    }
    case "update": {
      const there = page.blocks.get(change.after.id);
      if (!there) return conflict("block_deleted", null);
      if (sameBlock(there, change.before)) return CURRENT;
      return sameBlock(there, change.after) ? ALREADY : conflict("block_changed", there);
    }
    case "delete": {
      const there = page.blocks.get(change.block.id);
      if (!there) return ALREADY;
      return sameBlock(there, change.block) ? CURRENT : conflict("block_changed", there);
    }
    case "move": {
      const there = page.blocks.get(change.block.id);
      if (!there) return conflict("block_deleted", null);
      if (!sameBlock(there, change.block)) return conflict("block_changed", there);
      if (!placement) return conflict("no_place", there);
      return resolvePlace(placement, page, insertedHere) ? CURRENT : conflict("place_deleted", there);
    }
    case "set_title":
      if (page.title === change.before) return CURRENT;
      return page.title === change.after ? ALREADY : conflict("value_changed", page.title);
    case "set_option": {
      const now = page.options[change.key] ?? false;
      if (now === change.before) return CURRENT;
      return now === change.after ? ALREADY : conflict("value_changed", now);
    }
    default:
      return CURRENT;
  }
}

function conflict(reason: ConflictReason, current: Block | string | boolean | null): Merged {
  return { state: "conflict", reason, current };
}

/** Every change of a proposal against the page now, by index. */
export function mergeChanges(
  changes: readonly Change[],
  placements: readonly (Placement | null | undefined)[],
  page: PageNow,
): Merged[] {
  const inserted = insertedBlocks(changes, placements);
  return changes.map((change, i) => mergeChange(change, placements[i], page, inserted));
}

/** A step on the page now, anchored by id: what a decision writes. */
export type AnchoredStep =
  | { op: "replace"; block: Block }
  | { op: "delete"; blockId: string }
  | { op: "insert"; place: Place; block: Block }
  | { op: "move"; blockId: string; place: Place };

/** A change a person chose to apply: as proposed, in their own version (`block`), or over a conflict (`force`). */
export interface ChosenChange {
  index: number;
  change: Change;
  placement?: Placement | null;
  /** The person's version of the block an update or insert writes (same id). */
  block?: Block;
  /** "Take the agent's": apply over a conflict (a person's explicit choice). */
  force?: boolean;
}

/** What applying chosen changes writes on the page now: body steps, and the title and options it sets. */
export interface ChangeSet {
  steps: AnchoredStep[];
  title?: string;
  options?: Record<string, boolean>;
}

/** A chosen change that cannot be applied as chosen; `message` says why, for the person. */
export class ChangeRefused extends Error {
  constructor(
    readonly index: number,
    message: string,
  ) {
    super(`change ${index}: ${message}`);
  }
}

/**
 * The steps that apply `chosen` (in their order) to the page now. Each change is merged again first: a conflict
 * is applied only when forced or edited by the person, never silently over a newer version of its block. Deletes
 * come last, so an insert placed after a block the same step deletes still finds it.
 */
export function planChosen(
  chosen: readonly ChosenChange[],
  page: PageNow,
  insertedHere: ReadonlyMap<string, Placement | null | undefined>,
): ChangeSet {
  const set: ChangeSet = { steps: [] };
  const deletes: AnchoredStep[] = [];
  const placed = new Set<string>();
  for (const item of chosen) {
    const { change, index } = item;
    const merged = mergeChange(change, item.placement, page, insertedHere);
    const personal = item.block !== undefined || item.force === true;
    if (merged.state === "already" && item.block === undefined) continue;
    if (merged.state === "conflict" && !personal) {
      throw new ChangeRefused(index, `it conflicts with a newer version (${merged.reason.replaceAll("_", " ")})`);
    }
    switch (change.kind) {
      case "insert": {
        const block = ownVersion(item, change.block);
        const place = resolvePlace(item.placement, page, insertedHere, placed) ?? { at: "end" as const };
        if (page.blocks.has(block.id)) set.steps.push({ op: "replace", block });
        else set.steps.push({ op: "insert", place, block });
        placed.add(block.id);
        break;
      }
      case "update": {
        if (!page.blocks.has(change.after.id)) {
          throw new ChangeRefused(index, "the block was deleted since; keep the page as it is");
        }
        set.steps.push({ op: "replace", block: ownVersion(item, change.after) });
        break;
      }
      case "delete":
        if (item.block !== undefined) throw new ChangeRefused(index, "a deletion has no block to edit");
        if (page.blocks.has(change.block.id)) deletes.push({ op: "delete", blockId: change.block.id });
        break;
      case "move": {
        if (item.block !== undefined) throw new ChangeRefused(index, "a move has no block to edit");
        if (!page.blocks.has(change.block.id)) throw new ChangeRefused(index, "the block was deleted since");
        const place = resolvePlace(item.placement, page, insertedHere, placed) ?? { at: "end" as const };
        set.steps.push({ op: "move", blockId: change.block.id, place });
        break;
      }
      case "set_title":
        if (item.block !== undefined) throw new ChangeRefused(index, "a title change has no block to edit");
        set.title = change.after;
        break;
      case "set_option":
        if (item.block !== undefined) throw new ChangeRefused(index, "an option change has no block to edit");
        set.options = { ...set.options, [change.key]: change.after };
        break;
      default:
        throw new ChangeRefused(index, `a ${change.kind} change is not applied change by change`);
    }
  }
  set.steps.push(...deletes);
  return set;
}

function ownVersion(item: ChosenChange, proposed: Block): Block {
  if (item.block === undefined) return proposed;
  if (item.block.id !== proposed.id) {
    throw new ChangeRefused(item.index, `the edited block must keep the id ${proposed.id}`);
  }
  return item.block;
}

/** Applies anchored steps to a whole block list in memory (tests and models; the kernel runs them as SQL). */
export function applySteps(blocks: readonly Block[], steps: readonly AnchoredStep[]): Block[] {
  const result = [...blocks];
  const indexOf = (id: string) => result.findIndex((block) => block.id === id);
  const at = (place: Place) => ("after" in place ? indexOf(place.after) + 1 : place.at === "start" ? 0 : result.length);
  for (const step of steps) {
    switch (step.op) {
      case "replace":
        result[indexOf(step.block.id)] = step.block;
        break;
      case "delete":
        result.splice(indexOf(step.blockId), 1);
        break;
      case "insert":
        result.splice(at(step.place), 0, step.block);
        break;
      case "move": {
        const [moved] = result.splice(indexOf(step.blockId), 1);
        result.splice(at(step.place), 0, moved!);
        break;
      }
    }
  }
  return result;
}

/**
 * Where each insert or move of a diff between two block lists goes in the `after` list: after the block before it
 * there (which is on the page, or inserted by the same change set), or at the start.
 */
export function placementsFromOrder(after: readonly Block[], changes: readonly Change[]): (Placement | null)[] {
  const previous = new Map<string, string | null>();
  after.forEach((block, i) => previous.set(block.id, i === 0 ? null : after[i - 1]!.id));
  return changes.map((change) =>
    change.kind === "insert" || change.kind === "move" ? { after: previous.get(change.block.id) ?? null } : null,
  );
}
