import type { Block } from "@mnote/contract";
import fc from "fast-check";

/** A small id pool, so independently drawn lists share many blocks. */
const SHARED_IDS = ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j"];
/** Ids never drawn for `before`, for blocks a permuted `after` adds. */
const NEW_IDS = ["n1", "n2", "n3", "n4"];
/** Few texts, so a redrawn block often equals the old one and only some blocks update. */
const text = fc.constantFrom("", "x", "hello world");

export function blockWithId(id: string): fc.Arbitrary<Block> {
  return fc.oneof(
    fc.record({ id: fc.constant(id), type: fc.constant("paragraph" as const), text }),
    fc.record({
      id: fc.constant(id),
      type: fc.constant("heading" as const),
      text,
      level: fc.constantFrom(1 as const, 2 as const),
    }),
    fc.record({ id: fc.constant(id), type: fc.constant("todo" as const), text, checked: fc.boolean() }),
    fc.record({ id: fc.constant(id), type: fc.constant("code" as const), text, language: fc.constantFrom("", "ts") }),
  );
}

function blocksWithIds(ids: readonly string[]): fc.Arbitrary<Block[]> {
  return fc.tuple(...ids.map(blockWithId));
}

export const blockList: fc.Arbitrary<Block[]> = fc
  .uniqueArray(fc.constantFrom(...SHARED_IDS), { maxLength: SHARED_IDS.length })
  .chain(blocksWithIds);

/** `after` as a shuffled, partly redrawn subset of `before` plus some new blocks. */
const permutedPair: fc.Arbitrary<[Block[], Block[]]> = blockList.chain((before) =>
  fc
    .tuple(
      fc.tuple(...before.map((block) => fc.oneof(fc.constant(block), blockWithId(block.id)))),
      fc.uniqueArray(fc.constantFrom(...NEW_IDS)).chain(blocksWithIds),
    )
    .chain(([kept, added]) => fc.shuffledSubarray([...kept, ...added]))
    .map((after): [Block[], Block[]] => [before, after]),
);

/** Before/after pairs: either drawn independently from the shared pool, or one derived from the other. */
export const blockListPair: fc.Arbitrary<[Block[], Block[]]> = fc.oneof(fc.tuple(blockList, blockList), permutedPair);

export function paragraph(id: string, text = id): Block {
  return { id, type: "paragraph", text };
}

export function ids(blocks: readonly Block[]): string[] {
  return blocks.map((block) => block.id);
}
