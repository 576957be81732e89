import type { Block, Change } from "@mnote/contract";
import { diffBlocks } from "./diff-blocks";

/** The parts of a proposed replace a person unticked, keyed by block id. */
interface Undone {
  inserts: Set<string>;
  /** Block id → the before version to put back. */
  updates: Map<string, Block>;
  moves: Set<string>;
  /** Block id → the deleted block to put back. */
  deletes: Map<string, Block>;
}

/**
 * Applies part of a proposed replace: starts from `after` and undoes every change `keep`
 * rejects, so keeping everything gives `after` and keeping nothing gives `before`.
 * `keep` sees each change with its position in `changes`, the list the panel showed.
 */
export function applySelectedChanges(
  before: Block[],
  after: Block[],
  keep: (change: Change, i: number) => boolean,
  changes: Change[] = diffBlocks(before, after),
): Block[] {
  const undone = collectUndone(changes, keep);
  const result = new BlockList(
    after.filter((block) => !undone.inserts.has(block.id)).map((block) => undone.updates.get(block.id) ?? block),
  );
  restoreBeforePlaces(result, before, undone);
  return result.toArray();
}

function collectUndone(changes: readonly Change[], keep: (change: Change, i: number) => boolean): Undone {
  const undone: Undone = { inserts: new Set(), updates: new Map(), moves: new Set(), deletes: new Map() };
  changes.forEach((change, i) => {
    if (keep(change, i)) return;
    switch (change.kind) {
      case "insert":
        undone.inserts.add(change.block.id);
        break;
      case "update":
        undone.updates.set(change.after.id, change.before);
        break;
      case "move":
        undone.moves.add(change.block.id);
        break;
      case "delete":
        undone.deletes.set(change.block.id, change.block);
        break;
      default:
      // Title, options, summary and notes are not in the block list; their tools apply them.
    }
  });
  return undone;
}

/**
 * Puts un-moved and un-deleted blocks back right after the nearest earlier `before` block
 * in the result. Walking `before` in order means that neighbour has already been put back
 * itself, so runs of restored blocks keep their original order.
 */
function restoreBeforePlaces(result: BlockList, before: readonly Block[], undone: Undone): void {
  let anchor: string | null = null;
  for (const { id } of before) {
    const deleted = undone.deletes.get(id);
    if (undone.moves.has(id) && result.has(id)) result.moveAfter(id, anchor);
    else if (deleted && !result.has(id)) result.insertAfter(deleted, anchor);
    if (result.has(id)) anchor = id;
  }
}

interface Node {
  block: Block;
  prev: string | null;
  next: string | null;
}

/** A linked list keyed by block id, so each restore is O(1) instead of an array splice. */
class BlockList {
  private readonly nodes = new Map<string, Node>();
  private head: string | null = null;
  private tail: string | null = null;

  constructor(blocks: readonly Block[]) {
    for (const block of blocks) this.insertAfter(block, this.tail);
  }

  has(id: string): boolean {
    return this.nodes.has(id);
  }

  /** Inserts `block` after the block with id `anchor`, or at the start when `anchor` is null. */
  insertAfter(block: Block, anchor: string | null): void {
    const next = anchor === null ? this.head : this.node(anchor).next;
    this.nodes.set(block.id, { block, prev: anchor, next });
    if (anchor === null) this.head = block.id;
    else this.node(anchor).next = block.id;
    if (next === null) this.tail = block.id;
    else this.node(next).prev = block.id;
  }

  moveAfter(id: string, anchor: string | null): void {
    const { block } = this.node(id);
    this.remove(id);
    this.insertAfter(block, anchor);
  }

  toArray(): Block[] {
    const blocks: Block[] = [];
    for (let id = this.head; id !== null;) {
      const node = this.node(id);
      blocks.push(node.block);
      id = node.next;
    }
    return blocks;
  }

  private remove(id: string): void {
    const { prev, next } = this.node(id);
    if (prev === null) this.head = next;
    else this.node(prev).next = next;
    if (next === null) this.tail = prev;
    else this.node(next).prev = prev;
    this.nodes.delete(id);
  }

  private node(id: string): Node {
    const node = this.nodes.get(id);
    if (!node) throw new Error(`block ${id} is not in the list`);
    return node;
  }
}
