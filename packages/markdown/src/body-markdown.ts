import type { Block } from "@mnote/contract";
import { blocksToMarkdown, idComment } from "./to-markdown";

/**
 * Blocks that are not a page's — a comment's body (decision 0040) — as Markdown without the id comments: nobody edits
 * a comment by block id, so a reader sees only what was written. The ids are the body's own, so each comment the
 * serializer wrote is known exactly and taken out where it stands (after a line's text, alone before a code block or a
 * divider, or alone for an empty paragraph); text that looks like one is escaped by the serializer and stays.
 */
export function bodyToMarkdown(blocks: readonly Block[]): string {
  let text = blocksToMarkdown(blocks);
  for (const block of blocks) {
    const comment = idComment(block.id);
    // The serializer's own comment, not the escaped text of one (`\<!-- …`).
    let at = text.indexOf(comment);
    while (at > 0 && text[at - 1] === "\\") at = text.indexOf(comment, at + 1);
    if (at < 0) continue;
    const before = at > 0 && text[at - 1] === " " ? 1 : 0;
    const after = text.startsWith("\n\n", at + comment.length) && before === 0 ? 2 : 0;
    text = text.slice(0, at - before) + text.slice(at + comment.length + after);
  }
  // A body is quoted inside other text (a list answer, a thread): no trailing line break.
  return text.replace(/\n+$/, "");
}
