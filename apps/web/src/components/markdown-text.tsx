"use client";

import type { Block } from "@mnote/contract";
import { MarkdownRefused, markdownToBlocks } from "@mnote/markdown";
import { useMemo } from "react";
import { BlockBody, FormattedText } from "./blocks";

/**
 * An agent's Markdown (a page summary, an AI note) shown as formatting, read by the page's own rules (decision 0026:
 * the same parser and link rule as a model's page Markdown), never as `**literal**` stars (issue 36). Its headings are
 * drawn as strong lines, not heading elements: they sit inside a card under the panel's own headings. Line breaks
 * inside a paragraph stay (the stylesheet keeps them). Markdown the page would refuse (a table, an image, raw HTML)
 * is shown as the text it is.
 */
export function MarkdownText({ markdown }: { markdown: string }) {
  const blocks = useMemo(() => {
    try {
      return markdownToBlocks(markdown).map((block, i) => ({ ...block, id: `md${i}` }) as Block);
    } catch (error) {
      if (error instanceof MarkdownRefused) return null;
      throw error;
    }
  }, [markdown]);
  if (!blocks) return <p className="markdown-text plain">{markdown}</p>;
  return (
    <div className="markdown-text">
      {blocks.map((block) =>
        block.type === "heading" ? (
          <p key={block.id} className={`block heading-line level-${block.level}`}>
            <strong>
              <FormattedText block={block} />
            </strong>
          </p>
        ) : (
          <BlockBody key={block.id} block={block} content={<FormattedText block={block} />} />
        ),
      )}
    </div>
  );
}
