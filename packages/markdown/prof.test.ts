import { it } from "vitest";
import type { Block } from "@mnote/contract";
import { blocksToMarkdown } from "./src/index";
it("prof", () => {
  const blocks: Block[] = Array.from({ length: 187 }, (_, i) => i % 10 === 3 ? { id: `b${i}`, type: "bulleted", text: `Point ${i}` } : ({ id: `b${i}`, type: "paragraph", text: `Paragraph ${i} of the benchmark page: some ordinary words so a block is the size of a real one.`, marks: [{ type: "bold", start: 0, end: 9 }, { type: "link", start: 27, end: 31, href: "https://example.com/bench" }] }));
  for (let i = 0; i < 5; i++) blocksToMarkdown(blocks);
  const t = performance.now();
  for (let i = 0; i < 50; i++) blocksToMarkdown(blocks);
  console.log("ms per call", (performance.now() - t) / 50);
});
