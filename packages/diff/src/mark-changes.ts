import type { Block, Mark, MarkType } from "@mnote/contract";

const NAMES: Record<MarkType, string> = {
  bold: "bold",
  italic: "italic",
  strike: "strikethrough",
  code: "inline code",
  link: "link",
};

const marksOf = (block: Block): Mark[] => ("marks" in block ? (block.marks ?? []) : []);
const quoted = (text: string) => `'${text.length > 40 ? `${text.slice(0, 39)}…` : text}'`;

/**
 * A block's formatting changes in words (decision 0026), for the dry run's reader and the panel:
 * "bold added to 'Friday'", "italic removed from 'soon'", "link target changed on 'docs'". Spans are
 * matched by type and the words they cover in each version's text, so a bold word that moved with an
 * edit of the text around it is no change. Empty when the formatting is the same.
 */
export function markChanges(before: Block, after: Block): string[] {
  const words = (block: Block, mark: Mark) => block.text.slice(mark.start, mark.end);
  const key = (block: Block, mark: Mark) => `${mark.type}\u0000${words(block, mark)}`;
  const left = new Map<string, Mark[]>();
  for (const mark of marksOf(before)) left.set(key(before, mark), [...(left.get(key(before, mark)) ?? []), mark]);
  const out: string[] = [];
  const added: Mark[] = [];
  for (const mark of marksOf(after)) {
    const same = left.get(key(after, mark));
    const match = same?.shift();
    if (!match) {
      added.push(mark);
      continue;
    }
    if (mark.type === "link" && match.href !== mark.href)
      out.push(`link target changed on ${quoted(words(after, mark))}: ${match.href} → ${mark.href}`);
  }
  const removed = [...left.values()].flat();
  for (const mark of added) {
    // A link over the same words with another target is a target change, not a remove and an add.
    const old = removed.findIndex((r) => r.type === "link" && mark.type === "link" && r.start === mark.start);
    if (old !== -1 && before.text === after.text) {
      out.push(`link target changed on ${quoted(words(after, mark))}: ${removed[old]!.href} → ${mark.href}`);
      removed.splice(old, 1);
      continue;
    }
    out.push(`${NAMES[mark.type]} added to ${quoted(words(after, mark))}`);
  }
  for (const mark of removed) out.push(`${NAMES[mark.type]} removed from ${quoted(words(before, mark))}`);
  return out;
}

/** A list item's indent change ("indent: 0 → 1"), or null when it stays. */
export function indentChange(before: Block, after: Block): { from: number; to: number } | null {
  const from = "indent" in before ? (before.indent ?? 0) : 0;
  const to = "indent" in after ? (after.indent ?? 0) : 0;
  return from === to ? null : { from, to };
}
