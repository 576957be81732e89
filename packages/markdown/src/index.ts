/**
 * @mnote/markdown — blocks ⇄ GitHub-flavoured Markdown (decision 0026). The router turns a model's
 * Markdown into blocks before planning a write, and a window of blocks into Markdown for
 * `mnote.page.get format: "markdown"`. Parsing and serializing are micromark/mdast's.
 */
export { blocksToMarkdown, blocksToMarkdownMeasured, blocksToTree, CALLOUT_MARKER, idComment } from "./to-markdown";
export type { MeasuredMarkdown } from "./to-markdown";
/** Empties the kept inline Markdown: for tests and for the benchmark's first-read timing. */
export { forgetInlineMarkdown } from "./to-markdown";
export { MarkdownRefused, markdownToBlocks } from "./from-markdown";
export { bodyToMarkdown } from "./body-markdown";
