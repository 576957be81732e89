import { BlockSchema } from "@mnote/contract";
import { describe, expect, it } from "vitest";
import { bodyToMarkdown } from "./body-markdown";
import { markdownToBlocks } from "./from-markdown";

/** A comment's body as the router stores it: the Markdown's blocks with ids of their own. */
const body = (markdown: string) =>
  markdownToBlocks(markdown).map((block, i) => BlockSchema.parse({ ...block, id: `c${i + 1}` }));

describe("bodyToMarkdown", () => {
  it.each([
    "Which **Friday**?",
    "First paragraph.\n\nSecond, with a [link](https://example.com).",
    "- one\n- two\n  - nested",
    "Code:\n\n```ts\nconst a = 1;\n```",
    "Above\n\n---\n\nBelow",
    "> quoted",
  ])("answers the Markdown without id comments, and it reads back as the same blocks: %j", (markdown) => {
    const blocks = body(markdown);
    const text = bodyToMarkdown(blocks);
    expect(text).not.toContain("mnote:id");
    expect(body(text)).toEqual(blocks);
  });

  it("keeps text that only looks like an id comment", () => {
    const blocks = [{ id: "c1", type: "paragraph" as const, text: "see <!-- mnote:id=c1 --> here" }];
    const text = bodyToMarkdown(blocks);
    expect(body(text)[0]!.text).toBe("see <!-- mnote:id=c1 --> here");
  });
});
